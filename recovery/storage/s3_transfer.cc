#include "recovery/storage/s3_transfer.h"

#include <algorithm>
#include <utility>

#include "binlog/error.h"

namespace binrecover::recovery::s3 {

std::unique_ptr<Client> another_client(const Client& like) {
  auto c = std::make_unique<Client>(like.config());
  c->retry_seconds = like.retry_seconds;
  c->on_retry = like.on_retry;
  return c;
}

ReadAhead::ReadAhead(const Client& like, std::size_t count, std::size_t streams, Fetch fetch)
    : like_(like),
      count_(count),
      streams_(std::max<std::size_t>(1, streams)),
      fetch_(std::move(fetch)) {
  const std::size_t n = std::min(streams_, count_);
  for (std::size_t i = 0; i < n; ++i) {
    // (made here, not in the thread: `like` is the reader's, read by this thread only)
    std::shared_ptr<Client> c = another_client(like_);
    clients_.push_back(c);
    workers_.emplace_back([this, c] { work(*c); });
  }
}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  for (auto& c : clients_) c->cancelled = true;  // (a fetch under way, or its retries, stop)
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ReadAhead::work(Client& client) {
  std::unique_lock lock(mu_);
  for (;;) {
    work_cv_.wait(lock,
                  [&] { return stopping_ || (issued_ < count_ && issued_ < next_ + window_); });
    if (stopping_) return;
    const std::size_t index = issued_++;
    const std::uint64_t generation = generation_;
    chunks_[index];
    Chunk got;
    if (!spare_.empty()) {
      got.bytes = std::move(spare_.back());
      spare_.pop_back();
    }
    lock.unlock();
    try {
      got.bytes.clear();
      fetch_(client, index, got.bytes);
    } catch (...) {
      got.error = std::current_exception();
    }
    got.done = true;
    lock.lock();
    if (generation != generation_) {  // (the reader went elsewhere)
      spare_.push_back(std::move(got.bytes));
      continue;
    }
    chunks_[index] = std::move(got);
    ready_cv_.notify_all();
  }
}

void ReadAhead::take(std::size_t index, std::vector<std::byte>& into) {
  std::unique_lock lock(mu_);
  if (into.capacity() > 0) spare_.push_back(std::move(into));
  into = std::vector<std::byte>();
  if (index >= count_) return;
  if (index != next_) {  // (out of order: what was fetched ahead is dropped)
    ++generation_;
    for (auto& [i, c] : chunks_)
      if (c.done) spare_.push_back(std::move(c.bytes));
    chunks_.clear();
    next_ = issued_ = index;
    window_ = 1;
    work_cv_.notify_all();
  }
  ready_cv_.wait(lock, [&] {
    const auto it = chunks_.find(index);
    return it != chunks_.end() && it->second.done;
  });
  Chunk c = std::move(chunks_[index]);
  chunks_.erase(index);
  next_ = index + 1;
  window_ = std::min(streams_, window_ * 2);
  work_cv_.notify_all();
  if (c.error) {
    spare_.push_back(std::move(c.bytes));
    lock.unlock();
    std::rethrow_exception(c.error);
  }
  into = std::move(c.bytes);
}

ParallelUpload::ParallelUpload(Client& client, Url object, std::size_t part_bytes,
                               std::string content_type)
    : client_(client),
      object_(std::move(object)),
      base_part_(std::max<std::size_t>(part_bytes, std::size_t{5} << 20)),
      content_type_(std::move(content_type)) {
  filling_.reserve(base_part_);
}

ParallelUpload::~ParallelUpload() { abort(); }

std::size_t ParallelUpload::part_size() const { return base_part_ << std::min(parts_ / 1000, 6u); }

void ParallelUpload::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const std::size_t take = std::min(bytes.size(), part_size() - filling_.size());
    filling_.append(bytes.substr(0, take));
    bytes.remove_prefix(take);
    bytes_ += take;
    if (filling_.size() == part_size()) send_part();
  }
}

void ParallelUpload::rethrow_failure() {
  std::lock_guard lock(mu_);
  if (failure_) std::rethrow_exception(failure_);
}

void ParallelUpload::send_part() {
  rethrow_failure();
  if (upload_id_.empty()) upload_id_ = client_.create_multipart(object_);
  if (workers_.empty()) {
    const std::size_t n = std::max<std::size_t>(1, client_.config().streams);
    for (std::size_t i = 0; i < n; ++i) {
      std::shared_ptr<Client> c = another_client(client_);
      clients_.push_back(c);
      workers_.emplace_back([this, c] { work(*c); });
    }
  }
  std::unique_lock lock(mu_);
  room_cv_.wait(lock, [&] { return failure_ || in_flight_ < workers_.size(); });
  if (failure_) std::rethrow_exception(failure_);
  queued_.emplace(++parts_, std::move(filling_));
  ++in_flight_;
  work_cv_.notify_one();
  filling_ = std::string();
  if (!spare_.empty()) {  // (a sent part's buffer, filled again: no allocation per part)
    filling_ = std::move(spare_.back());
    spare_.pop_back();
  }
  lock.unlock();
  filling_.clear();
  filling_.reserve(part_size());
}

void ParallelUpload::work(Client& client) {
  std::unique_lock lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stopping_ || !queued_.empty(); });
    if (stopping_) return;
    auto node = queued_.extract(queued_.begin());
    const bool failed = failure_ != nullptr;  // (then the rest is not sent)
    lock.unlock();
    std::string etag;
    std::exception_ptr error;
    try {
      if (!failed) {
        const std::string& part = node.mapped();
        etag = client.upload_part(object_, upload_id_, node.key(),
                                  {reinterpret_cast<const std::byte*>(part.data()), part.size()});
      }
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    spare_.push_back(std::move(node.mapped()));
    if (error && !failure_) failure_ = error;
    if (!error) etags_[node.key()] = std::move(etag);
    --in_flight_;
    room_cv_.notify_all();
  }
}

void ParallelUpload::finish() {
  if (upload_id_.empty()) {  // (smaller than a part: one PUT)
    client_.put(object_, {reinterpret_cast<const std::byte*>(filling_.data()), filling_.size()},
                content_type_);
    filling_ = std::string();
    return;
  }
  if (!filling_.empty()) send_part();
  {
    std::unique_lock lock(mu_);
    room_cv_.wait(lock, [&] { return in_flight_ == 0; });
    if (failure_) std::rethrow_exception(failure_);
  }
  std::vector<std::string> etags;
  for (auto& [n, e] : etags_) etags.push_back(std::move(e));
  if (etags.size() != parts_)
    throw Error(ErrorCode::kIo, object_.text() + ": a part of the upload has no ETag");
  client_.complete_multipart(object_, upload_id_, etags);
  upload_id_.clear();
}

void ParallelUpload::abort() noexcept {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    queued_.clear();
  }
  // (finished: the workers wait for work, nothing is under way; else what is under way stops)
  if (!upload_id_.empty())
    for (auto& c : clients_) c->cancelled = true;
  work_cv_.notify_all();
  for (auto& t : workers_)
    if (t.joinable()) t.join();
  workers_.clear();
  if (upload_id_.empty()) return;
  try {
    client_.abort_multipart(object_, upload_id_);
  } catch (...) {
  }
  upload_id_.clear();
}

}  // namespace binrecover::recovery::s3
