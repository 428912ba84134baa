// The "gradients" extension of the conformance format
// (tests/conformance/wpt/README.md): turns a case into one that also computes
// d(Σ output · seed)/d(input) for every floating-point input listed in
// "expected" — graph inputs and constants alike — by differentiating the
// case's graph (engine/autodiff), and checks them with the extension's
// tolerance.
#ifndef WEBNNM_TESTS_CONFORMANCE_GRADIENT_CASE_H_
#define WEBNNM_TESTS_CONFORMANCE_GRADIENT_CASE_H_

#include "absl/status/status.h"
#include "tests/conformance/conformance_case.h"

namespace webnnm::conformance {

// Adds to `c` (built by BuildCase from a test with a "gradients" field) a
// seed input per seeded output ("seed:<output>") and a gradient output per
// listed input ("gradient:<input>") with its expected values and tolerance.
// Errors name what does not match (an unknown name, a seed of the wrong
// length, an operation without a gradient rule).
absl::Status AddGradients(Case& c);

}  // namespace webnnm::conformance

#endif  // WEBNNM_TESTS_CONFORMANCE_GRADIENT_CASE_H_
