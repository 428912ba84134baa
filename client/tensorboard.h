// TensorBoard's event files, written without TensorFlow: a file of records
// (a little-endian uint64 length, its masked CRC-32C, the data, the data's
// masked CRC-32C), each holding a tensorflow.Event message encoded by hand
// (wall_time = 1 double, step = 2 int64, file_version = 3 string, summary
// = 5 with its values: tag = 1 string, simple_value = 2 float). The first
// event is the file version "brain.Event:2", as TensorFlow writes.
#ifndef WEBNNM_CLIENT_TENSORBOARD_H_
#define WEBNNM_CLIENT_TENSORBOARD_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace webnnm::client {

// CRC-32C (Castagnoli), and TFRecord's mask of it.
uint32_t Crc32c(std::string_view data);
uint32_t MaskedCrc32c(std::string_view data);

// One record of an event file around `data`.
std::string EventRecord(std::string_view data);

// The Event messages a run's file holds.
std::string FileVersionEvent(double wall_time);
std::string ScalarEvent(double wall_time, int64_t step, std::string_view tag,
                        float value);

// TensorBoard's file name for events written now on this host:
// events.out.tfevents.SECONDS.HOST (with `suffix` after it).
std::string EventFileName(std::string_view suffix);

}  // namespace webnnm::client

#endif  // WEBNNM_CLIENT_TENSORBOARD_H_
