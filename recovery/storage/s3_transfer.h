#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "recovery/storage/s3.h"

namespace binrecover::recovery::s3 {

// Parallel transfers: where the link or the store's time per request is the limit, up to
// Config::streams requests at once, each on a connection of its own (a Client is one
// connection). Results come back in order, so a reader or a writer sees one stream of bytes.

// A connection like `like` (its settings, retries and retry notice), for another thread.
std::unique_ptr<Client> another_client(const Client& like);

// The chunks 0..count-1 of something read in order, each fetched by `fetch` (into a buffer it
// is given, reused: no allocation per chunk) on a connection of its own, up to `streams` ahead
// of the reader. The window grows from one chunk as the reader goes on in order (a reader that
// looks at one chunk causes one fetch); a take out of order starts again there. Memory: up to
// `streams` + 1 chunks. A fetch's error comes out of take().
class ReadAhead {
 public:
  using Fetch = std::function<void(Client&, std::size_t index, std::vector<std::byte>& out)>;
  ReadAhead(const Client& like, std::size_t count, std::size_t streams, Fetch fetch);
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // Chunk `index` into `into`, whose buffer goes back to be fetched into again (empty past
  // the last chunk).
  void take(std::size_t index, std::vector<std::byte>& into);

 private:
  struct Chunk {
    bool done = false;
    std::vector<std::byte> bytes;
    std::exception_ptr error;
  };
  void work(Client& client);

  const Client& like_;
  const std::size_t count_, streams_;
  Fetch fetch_;
  std::mutex mu_;
  std::condition_variable ready_cv_, work_cv_;
  std::size_t next_ = 0;    // the chunk the reader takes next
  std::size_t issued_ = 0;  // the next chunk handed to a worker
  std::size_t window_ = 1;  // how far past next_ chunks are fetched
  std::uint64_t generation_ = 0;
  std::map<std::size_t, Chunk> chunks_;        // fetched or being fetched, in [next_, issued_)
  std::vector<std::vector<std::byte>> spare_;  // buffers to fetch into
  bool stopping_ = false;
  std::vector<std::shared_ptr<Client>> clients_;  // (the workers', cancelled when it goes)
  std::vector<std::thread> workers_;
};

// An object written in order by write(), stored as a multipart upload whose parts go up to
// `streams` at a time, each on a connection of its own (one PUT when it is smaller than a
// part). Parts are `part_bytes`, doubled after every 1,000 (up to 64 times: an object of
// 10,000 parts of 8 MiB at the start reaches 2.5 TB). Memory: up to `streams` + 1 parts.
// Nothing is visible under the key until finish(); the destructor aborts an unfinished one.
class ParallelUpload {
 public:
  ParallelUpload(Client& client, Url object, std::size_t part_bytes, std::string content_type);
  ~ParallelUpload();
  ParallelUpload(const ParallelUpload&) = delete;
  ParallelUpload& operator=(const ParallelUpload&) = delete;

  void write(std::string_view bytes);
  void finish();
  void abort() noexcept;
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::size_t part_size() const;
  void send_part();  // the filled part, to a worker (waiting while `streams` are in flight)
  void work(Client& client);
  void rethrow_failure();

  Client& client_;
  const Url object_;
  const std::size_t base_part_;
  const std::string content_type_;
  std::string filling_;
  std::uint64_t bytes_ = 0;
  unsigned parts_ = 0;  // parts handed out
  std::string upload_id_;
  std::mutex mu_;
  std::condition_variable work_cv_, room_cv_;
  std::map<unsigned, std::string> queued_;  // part number -> bytes, not yet taken by a worker
  std::vector<std::string> spare_;          // sent parts' buffers, to fill again
  std::size_t in_flight_ = 0;               // queued or being sent
  std::map<unsigned, std::string> etags_;
  std::exception_ptr failure_;
  bool stopping_ = false;
  std::vector<std::shared_ptr<Client>> clients_;  // (the workers', cancelled by abort())
  std::vector<std::thread> workers_;
};

}  // namespace binrecover::recovery::s3
