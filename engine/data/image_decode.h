// Decoding one PNG or JPEG file's bytes (libpng, libjpeg-turbo) for the
// image-folder reader (image_folder.cc), internal to engine/data: the
// header checked against the limits and the model's size before anything is
// allocated, then the pixels.
#ifndef WEBNNM_ENGINE_DATA_IMAGE_DECODE_H_
#define WEBNNM_ENGINE_DATA_IMAGE_DECODE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/data/image_folder.h"

namespace webnnm::train::internal {

// What a decoder's header says, after its transforms: samples of
// `depth_bytes` (2: big-endian 16-bit), `channels` of them a pixel.
struct ImageHeader {
  int64_t width = 0, height = 0;
  int channels = 0;
  int depth_bytes = 1;
  size_t row_bytes = 0;
};

struct Image {
  ImageHeader header;
  std::vector<unsigned char> pixels;  // height rows of row_bytes
};

// The image in `bytes` (named `path` in errors): by content (a PNG's
// signature, a JPEG's start of image), else by name. InvalidArgument for a
// corrupt or unsupported image, or one larger than `spec` allows (or of
// another size, unless spec.resize).
absl::StatusOr<Image> Decode(const std::string& path, const std::string& bytes,
                             const ImageFolderSpec& spec);

}  // namespace webnnm::train::internal

#endif  // WEBNNM_ENGINE_DATA_IMAGE_DECODE_H_
