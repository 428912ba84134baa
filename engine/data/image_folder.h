// Image-folder datasets: a directory with one subfolder per class of PNG or
// JPEG files, read as a classification Dataset for a model with one image
// input and one output.
//
// Layout. DIR/CLASS/FILE: the classes are the subfolder names in sorted
// (byte) order, the samples class by class, each class's files in sorted
// name order. Files whose names do not end in .png, .jpg or .jpeg (any
// case) are ignored, and so are names starting with a dot (in DIR and in
// the class folders).
//
// Decoding: PNG with libpng (gray, gray+alpha, RGB, RGBA, palette, 1-16
// bits, interlaced), JPEG with libjpeg-turbo (gray, YCbCr or RGB; a CMYK
// JPEG is refused, libjpeg does not make RGB of it), each file by its
// content (a .jpg holding a PNG is read as one). Alpha is dropped
// (transparency is ignored, not composited). The model's channels decide
// the colour: 1 channel takes gray, colour images are turned gray by the
// luma weights 0.299 R + 0.587 G + 0.114 B; 3 channels take RGB, gray
// images replicated. Pixels are scaled to [0, 1]: value / 255, or value /
// 65535 for 16-bit PNG samples (no gamma correction).
//
// Sizes: an image must be the model input's height x width, unless
// `resize`, which resizes every image of another size to it bilinearly
// (half-pixel centres, edge samples clamped: what OpenCV's INTER_LINEAR and
// PyTorch's align_corners=False do; no antialiasing when shrinking).
//
// The sample layout is the model input's own: channels first (C, H, W,
// row-major) or channels last (H, W, C). ImageFolderSpecFor() reads it off
// the input type as the DAG's convolutions do (attr_binding.cc's default
// layout): channels last when the last dimension is named "channels",
// channels first otherwise ({channels, height, width} or unnamed [C, H, W]).
//
// Limits, checked before anything is allocated: the samples together
// (count x channels x height x width x 4 bytes of float32), each file's
// size, and each image as its header declares it (width x height x
// channels x 4 bytes, and its decoded rows) must fit in `max_bytes`, so an
// image bomb (a PNG header of 100000 x 100000) is refused without being
// decoded. Images are decoded one at a time.
//
// Errors: NotFound for a missing directory; InvalidArgument, naming the
// file, for everything else: a folder with no class subfolders or fewer
// than two, a class folder without images, a corrupt or truncated file
// (libpng's and libjpeg's errors are caught with setjmp/longjmp; they never
// print, abort or exit), an image of the wrong size (naming its size and the
// model's), a limit exceeded. Nothing is kept between calls; the functions
// may be called from several threads at once.
#ifndef WEBNNM_ENGINE_DATA_IMAGE_FOLDER_H_
#define WEBNNM_ENGINE_DATA_IMAGE_FOLDER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "engine/data/dataset.h"
#include "engine/ir/tensor_type.h"

namespace webnnm::train {

// What LoadImageFolder makes of each image.
struct ImageFolderSpec {
  int64_t channels = 1;  // 1 (gray) or 3 (RGB)
  int64_t height = 0, width = 0;
  bool channels_last = false;  // samples H, W, C; else C, H, W
  bool resize = false;         // resize other sizes instead of refusing them
  int64_t max_bytes = int64_t{1} << 32;
};

// Whether `path` is a directory to read as an image folder: one holding a
// subfolder (not a dot-name) and no IDX file (a name with "-idx" and
// "-ubyte", LoadIdx's train-images-idx3-ubyte[.gz] and the like). It says
// nothing of the subfolders' content: LoadImageFolder does.
bool IsImageFolder(const std::string& path);

// The spec for a model input of type `input`: [batch, C, H, W] or, with
// the last dimension named "channels", [batch, H, W, C], with C 1 or 3 and
// a float data type; FailedPrecondition saying what an image folder feeds
// otherwise. `resize` and `max_bytes` keep their defaults.
absl::StatusOr<ImageFolderSpec> ImageFolderSpecFor(const ir::TensorType& input);

// Reads the image folder `dir` (see above): count samples of
// channels x height x width float32 values, the class index of each as its
// target, the classes named after their folders; the Dataset's source is
// `dir`. The split is left to the caller (no fixed test subset).
absl::StatusOr<Dataset> LoadImageFolder(const std::string& dir,
                                        const ImageFolderSpec& spec);

// Image folders zipped: a .zip archive of CLASS/FILE entries (or
// TOP/CLASS/FILE, every entry under one top folder: a zipped image
// folder), read as LoadImageFolder reads a folder — what the daemon stores
// for an uploaded image dataset. The entries' declared sizes are checked
// against `max_bytes` before any is inflated, and an entry whose data does
// not match its size is refused naming ARCHIVE:ENTRY.
bool IsImageArchive(const std::string& path);  // by its .zip extension
// The images of an archive of class folders and its classes, counted from
// its entries (nothing decoded).
absl::StatusOr<std::pair<int64_t, int64_t>> ImageArchiveCounts(
    const std::string& path);
absl::StatusOr<Dataset> LoadImageArchive(const std::string& path,
                                         const ImageFolderSpec& spec);

// What an image folder (or a .zip of one) holds, from its listing and its
// first image's header: the classes (folder names, sorted), the images,
// and the first image's size and channels (1 gray, 3 colour) — what
// `webnnmctl init` sizes a model by.
struct ImageFacts {
  std::vector<std::string> classes;
  int64_t images = 0;
  int64_t width = 0, height = 0;
  int channels = 1;
};
absl::StatusOr<ImageFacts> ProbeImages(const std::string& path);

// The zip archive of image folder `dir`: each class folder's image files
// as CLASS/FILE (what LoadImageFolder reads, nothing else), the same
// bytes for the same files; the files together at most `max_bytes`
// (InvalidArgument otherwise, or for a folder that is no image folder).
absl::StatusOr<std::string> ZipImageFolder(const std::string& dir,
                                           int64_t max_bytes);

}  // namespace webnnm::train

#endif  // WEBNNM_ENGINE_DATA_IMAGE_FOLDER_H_
