#pragma once

#include <sys/types.h>

#include <atomic>
#include <csignal>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "recovery/recover/drill.h"
#include "recovery/server/apply.h"

// The drill's own server: started, reached and stopped by the drill alone.
namespace binrecover::recovery {

// A throwaway server that accepts no one but us: no TCP at all, its Unix socket in a folder
// only its user (and root) may enter, root without a password only through that socket,
// secure_file_priv in that folder, run as an unprivileged user when we are root; no binary log.
// With DrillOptions::server, the given server instead (nothing started).
class ThrowawayServer {
 public:
  explicit ThrowawayServer(const DrillOptions& opts);
  ~ThrowawayServer() { abandon(); }
  ThrowawayServer(const ThrowawayServer&) = delete;
  ThrowawayServer& operator=(const ThrowawayServer&) = delete;
  // Stops the server and removes its folder (unless --keep).
  void abandon();

  const std::string& dir() const { return dir_; }
  const std::string& binary() const { return binary_; }
  std::string socket() const { return srv_ + "/mysqld.sock"; }
  const std::string& account() const { return account_; }

  void start();
  void stop();
  // How the replay engine reaches the server.
  ConnectionOptions connection() const;
  // Runs `sql` through the client; its output in *out (when given). Returns the exit status.
  int query(const std::string& sql, std::string* out) const;
  // Feeds a file to the client; returns its status, with its messages in *err.
  int source_file(const std::string& path, std::string* err) const;

 private:
  std::vector<std::string> client_args(bool batch) const;

  std::string binary_, client_, dir_, srv_, account_;
  bool mariadb_ = true;
  bool server_applier_ = false;
  bool keep_ = false;
  std::optional<ConnectionOptions> external_;
  pid_t pid_ = -1;
};

// SIGINT, SIGTERM and SIGHUP while the drill runs are taken by a thread of their own, which
// stops the server and removes its folder before the drill exits with 128 + the signal.
class SignalWatch {
 public:
  explicit SignalWatch(std::function<void()> cleanup);
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

 private:
  std::function<void()> cleanup_;
  sigset_t set_{}, old_{};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace binrecover::recovery
