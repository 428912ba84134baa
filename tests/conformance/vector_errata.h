// Corrections to expected values of the shared conformance vectors that are
// themselves wrong, so that a correct backend is not failed by them.
//
// Each erratum names one expected element of one case, the value the vector
// holds, the value it should hold and how that value was derived. The case
// is still checked, with its own tolerance, against the corrected value. An
// erratum whose vector no longer holds the wrong value (the vectors were
// fixed) is reported as stale and not applied. The list is in
// vector_errata.cc and documented in docs/backends.md.
#ifndef WEBNNM_TESTS_CONFORMANCE_VECTOR_ERRATA_H_
#define WEBNNM_TESTS_CONFORMANCE_VECTOR_ERRATA_H_

#include <string>
#include <vector>

#include "tests/conformance/conformance_case.h"

namespace webnnm::conformance {

// Applies the errata for case `c` of the vector file named `file` (its
// basename). Returns one human-readable line per erratum applied or found
// stale, for the runner to print on stderr.
std::vector<std::string> ApplyVectorErrata(const std::string& file, Case& c);

}  // namespace webnnm::conformance

#endif  // WEBNNM_TESTS_CONFORMANCE_VECTOR_ERRATA_H_
