#pragma once

// replay --server-applier, the target's side: its checks, its replication connection to
// binrecover with the settings it needs (given back at the end), and what that connection says.

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "binlog/error.h"
#include "recovery/apply/replay.h"
#include "recovery/server/apply.h"
#include "recovery/server/replication_source.h"

namespace binrecover::recovery::replica {

inline constexpr const char* kConnection = "binrecover";  // the target's replication connection
inline constexpr const char* kUser = "binrecover";

// A replication status of the target's connection, as SHOW SLAVE 'binrecover' STATUS has it.
struct ReplicaStatus {
  bool valid = false;
  bool io_running = false, sql_running = false;
  std::string io_state;  // Slave_IO_Running: Yes, No, Connecting, Preparing
  unsigned sql_errno = 0, io_errno = 0;
  std::string sql_error, io_error, gtid_slave_pos;
};

ReplicaStatus read_status(Session& s);

// Watches the target's replication connection on a session of its own, every 100 ms.
class Monitor {
 public:
  explicit Monitor(const ConnectionOptions& conn) : session_(conn) {
    thread_ = std::thread([this] { run(); });
  }
  ~Monitor() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  ReplicaStatus status() {
    std::lock_guard<std::mutex> lock(mu_);
    if (failure_) std::rethrow_exception(failure_);
    return status_;
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      try {
        ReplicaStatus st = read_status(session_);
        lock.lock();
        status_ = std::move(st);
      } catch (...) {
        lock.lock();
        failure_ = std::current_exception();
        return;
      }
      cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; });
    }
  }

  Session session_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  ReplicaStatus status_;
  std::exception_ptr failure_;
  std::thread thread_;
};

// A setting's value as SQL: a number as it is, a word quoted (only letters, digits and _ are
// taken: values come from the target and the state file).
std::string setting_literal(const std::string& v);

// "a=1,b=X" as pairs, and back.
std::vector<std::pair<std::string, std::string>> parse_settings(const std::string& text);

std::string settings_text(const std::vector<std::pair<std::string, std::string>>& s);

// The target's replication connection for the run, and what is put back when it ends.
class Connection {
 public:
  explicit Connection(Session& s) : s_(s) {}
  ~Connection() {
    try {
      release();
    } catch (const Error&) {  // (the target is gone: nothing to put back now)
    }
  }
  // The connection removed, the settings given back (once). Throws Error(kServer).
  void release() {
    if (made_) {
      made_ = false;
      s_.execute(std::string("STOP SLAVE '") + kConnection + "'");
      s_.execute(std::string("RESET SLAVE '") + kConnection + "' ALL");
    }
    while (!restore_.empty()) {
      const auto [name, value] = restore_.back();
      restore_.pop_back();
      s_.execute("SET GLOBAL " + name + " = " + setting_literal(value));
    }
  }

  // SET GLOBAL name = value, given back to `before` at the end.
  void set(const std::string& name, const std::string& before, const std::string& value) {
    s_.execute("SET GLOBAL " + name + " = " + setting_literal(value));
    restore_.emplace_back(name, before);
  }
  void made() { made_ = true; }

 private:
  Session& s_;
  bool made_ = false;
  std::vector<std::pair<std::string, std::string>> restore_;
};

using Settings = std::vector<std::pair<std::string, std::string>>;

std::string random_password();

// The target must be a MariaDB with GTID replication.
void check_flavour(Session& session);

// What the target would do with what it is sent: refuses a target that skips errors, applies
// rows over what differs, or binlogs otherwise than -D asks. Returns its server id.
std::uint32_t check_target(Session& session, bool disable_log_bin);

// A connection of an earlier run: still fed by a live replay (an error), or left by a killed one
// (which a restarted target starts again by itself, maybe a moment after it takes clients):
// removed. Returns whether there was one.
bool remove_earlier(Session& session, const binlog::WarningSink& warn);

// The target's global settings this replay needs otherwise: its parallel applier's threads
// (--parallel), and DDL as in a pipe into mysql (MariaDB's replication runs CREATE TABLE as
// CREATE OR REPLACE, DROP as DROP IF EXISTS by default: slave_ddl_exec_mode=IDEMPOTENT).
Settings wanted_settings(const ReplayOptions& opts);

// The values of `wanted` to give back at the end: those an earlier (killed) run of this replay
// found (`prior`), else those the target has now where they differ.
Settings settings_before(Session& session, const Settings& wanted,
                         const std::optional<ReplayState>& prior);

// The settings changed through the guard (which gives them back).
void change_settings(Connection& guard, Session& session, const Settings& before,
                     const Settings& wanted, const ReplayOptions& opts,
                     const binlog::WarningSink& warn);

// The target's replication connection to the listener, without any filter of its
// configuration, started.
void start_replication(Session& session, const ListenerOptions& lo, unsigned port,
                       const ReplayOptions& opts);

}  // namespace binrecover::recovery::replica
