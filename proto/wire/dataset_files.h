// The files an IDX dataset may hold (MNIST's four, plain or gzipped): what
// the client uploads and the daemon accepts. Header-only.
#ifndef WEBNNM_PROTO_WIRE_DATASET_FILES_H_
#define WEBNNM_PROTO_WIRE_DATASET_FILES_H_

namespace webnnm::wire {

// MNIST-style IDX files, plain or gzipped.
inline constexpr const char* kIdxFileNames[] = {
    "train-images-idx3-ubyte", "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte", "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte",  "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte",  "t10k-labels-idx1-ubyte.gz"};

}  // namespace webnnm::wire

#endif  // WEBNNM_PROTO_WIRE_DATASET_FILES_H_
