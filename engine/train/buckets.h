// Ragged sequences in length buckets (internal to engine/train): a batch
// of ragged sequences is padded to its own longest sequence rounded up to
// a bucket, not to the dataset's longest, and the training step is
// compiled once per bucket. The buckets are multiples of ceil(T / 4) for
// a dataset padded to T steps (at most four lengths, T the last), and an
// epoch's shuffled order is regrouped so that a batch holds sequences of
// one bucket, but where one bucket ends and the next begins (then it is
// padded to the longer): the samples are ordered by bucket (each bucket
// keeps the shuffle's order), cut into batches, and the full batches
// shuffled again (seeded by the epoch: a function of the seed and the
// epoch only, so a resumed run repeats it); a short last batch stays last.
// Only models that cannot tell the padding apart are bucketed
// (BucketsKeepTheModel).
#ifndef WEBNNM_ENGINE_TRAIN_BUCKETS_H_
#define WEBNNM_ENGINE_TRAIN_BUCKETS_H_

#include <cstdint>
#include <vector>

#include "engine/dag/dag.h"

namespace webnnm::train {

// Whether padding a batch to fewer steps computes what padding it to T
// does: every path from a sequenced input reaches a (masked) lstm or gru
// — and from a returned sequence of one, a sequenced output (scored per
// step, its padding masked) or another such layer — through step-wise
// operations only: element-wise math, activations (softmax over a step's
// features), casts, comparisons, transposes, matmuls with a parameter or
// constant, gathers that take the sequence as indices (an embedding).
// Anything that mixes steps (a reduction, attention, normalization,
// reshape) would see a different padding in training than in evaluation.
bool BucketsKeepTheModel(const dag::Dag& dag);

// The bucket's length for a sequence of `length` steps (1..steps) in a
// dataset padded to `steps`.
int64_t BucketLength(int64_t length, int64_t steps);

// The epoch's order regrouped by bucket, as above; `lengths` holds every
// sample's length, `order` the epoch's shuffle of the training samples.
std::vector<int64_t> BucketedOrder(const std::vector<int64_t>& order,
                                   const std::vector<int64_t>& lengths,
                                   int64_t steps, int64_t batch, uint64_t seed,
                                   int epoch);

// The length the batch order[begin, begin + batch) is padded to: the
// bucket of its longest sequence.
int64_t BatchLength(const std::vector<int64_t>& order, int64_t begin,
                    int64_t batch, const std::vector<int64_t>& lengths,
                    int64_t steps);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_TRAIN_BUCKETS_H_
