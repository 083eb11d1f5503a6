// SQL output: LOAD DATA, its data blocks written to --local-load files and replayed as LOAD
// DATA LOCAL INFILE (recovery/sql/sql_sink.h).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "binlog/error.h"
#include "recovery/sql/event_info.h"
#include "recovery/sql/sql_quote.h"
#include "recovery/sql/sql_sink.h"

namespace binrecover::recovery {

using namespace binlog;

std::string SqlSink::load_file_path(std::uint32_t file_id, std::uint64_t pos, bool create) {
  if (!create) {
    for (auto it = load_files_.rbegin(); it != load_files_.rend(); ++it)
      if (it->first == file_id) return it->second;
    throw Error(ErrorCode::kBadEvent,
                "LOAD DATA block for file id " + std::to_string(file_id) +
                    " has no BEGIN_LOAD_QUERY or CREATE_FILE before it",
                pos);
  }
  if (load_dir_.empty()) {
    // A private folder (0700) of our own, inside --local-load's folder or $TMPDIR: nobody else
    // can plant a link or a file where binrecover writes row data.
    std::string parent = opts_.local_load_dir;
    if (parent.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      parent = tmp != nullptr && *tmp ? tmp : "/tmp";
    } else {
      std::error_code ec;
      std::filesystem::create_directories(parent, ec);
    }
    if (parent.find_first_of("'\\") != std::string::npos)
      throw Error(ErrorCode::kUsage,
                  "the folder for LOAD DATA files may not hold ' or \\ (it "
                  "is written in a LOAD DATA statement): " +
                      parent);
    std::string tmpl = parent + "/binrecover-load-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw Error(ErrorCode::kIo, "cannot create a folder for LOAD DATA files in " + parent + ": " +
                                      std::string(std::strerror(errno)));
    load_dir_ = tmpl;
  }
  // Numbered in the order written: two binlogs may hold the same file id at the same offset.
  std::string path = load_dir_ + "/SQL_LOAD-" + std::to_string(file_id) + "-" +
                     std::to_string(pos) + "-" + std::to_string(++load_seq_);
  if (load_files_.size() > 64) load_files_.erase(load_files_.begin());
  load_files_.emplace_back(file_id, path);
  return path;
}

void SqlSink::write_load_block(const Event& ev, const LoadBlock& b, bool begin) {
  const std::string path = load_file_path(b.file_id, ev.pos, begin);
  // The first block creates the file (it must not exist), the next ones append to it; a link is
  // never followed.
  const int fd =
      ::open(path.c_str(),
             O_WRONLY | O_CLOEXEC | O_NOFOLLOW | (begin ? O_CREAT | O_EXCL : O_APPEND), 0600);
  if (fd < 0)
    throw Error(ErrorCode::kIo, "cannot write LOAD DATA file " + path + ": " + std::strerror(errno),
                ev.pos);
  const char* p = reinterpret_cast<const char*>(b.data.data());
  std::size_t left = b.data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      throw Error(ErrorCode::kIo, "cannot write LOAD DATA file " + path, ev.pos);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::close(fd);
}

void SqlSink::load_data_query(const Event& ev, const Query& q) {
  // The server logs "LOAD DATA INFILE '<its temp file>' [REPLACE|IGNORE] INTO ..." with the
  // file name part between fn_pos_start and fn_pos_end; the replay reads our copy of the data
  // through the client instead (LOCAL), as mysqlbinlog does.
  if (q.fn_pos_start > q.fn_pos_end || q.fn_pos_end > q.query.size())
    throw Error(ErrorCode::kBadEvent, "LOAD DATA file name position outside the statement", ev.pos);
  const std::string path = load_file_path(q.file_id, ev.pos, false);
  append(q.query.substr(0, q.fn_pos_start));
  append(" LOCAL INFILE '");
  append(path);  // no quote or backslash in it (load_file_path): the same under any sql_mode
  append("'");
  if (q.dup_handling == 2) append(" REPLACE");  // LOAD_DUP_REPLACE; IGNORE is implied by LOCAL
  append(" INTO");
  append(q.query.substr(q.fn_pos_end));
  append("\n");
}

namespace {

// A FIELDS/LINES option as a string literal, escaped as mysqlbinlog prints them.
void append_load_term(fmt::memory_buffer& out, std::string_view s) {
  out.push_back('\'');
  for (char c : s) {
    switch (c) {
      case '\n':
        out.append(std::string_view("\\n"));
        break;
      case '\t':
        out.append(std::string_view("\\t"));
        break;
      case '\r':
        out.append(std::string_view("\\r"));
        break;
      case '\b':
        out.append(std::string_view("\\b"));
        break;
      case '\0':
        out.append(std::string_view("\\0"));
        break;
      case '\x1a':
        out.append(std::string_view("\\Z"));
        break;
      case '\'':
        out.append(std::string_view("\\'"));
        break;
      case '\\':
        out.append(std::string_view("\\\\"));
        break;
      default:
        out.push_back(c);
    }
  }
  out.push_back('\'');
}

}  // namespace

void SqlSink::create_file(const Event& ev, const LoadData& l) {
  // 4.x LOAD DATA: CREATE_FILE carries the statement's options and the first block of the data,
  // APPEND_BLOCKs the rest, EXEC_LOAD runs it. The data goes to --local-load and the statement
  // becomes LOAD DATA LOCAL INFILE on that file, as mysqlbinlog writes it.
  // A name the mysql client would read otherwise than the server (a backslash before a
  // backtick, CR, NUL) cannot go into this statement, which is sent as text: refused.
  const auto check_name = [&](std::string_view name) {
    if (client_reads_ident_alike(name) && !client_alters(name)) return;
    throw Error(ErrorCode::kUnsupportedFormat,
                "a LOAD DATA table or column name holds bytes the mysql client would misread "
                "(a backslash before a backtick, CR or NUL)",
                ev.pos);
  };
  check_name(l.table);
  {
    ByteCursor names(l.field_names, ev.pos);
    for (std::uint32_t k = 0; k < l.num_fields; ++k) check_name(names.cstr());
  }
  write_load_block(ev, LoadBlock{l.file_id, l.block}, true);
  const std::string path = load_file_path(l.file_id, ev.pos, false);
  fmt::memory_buffer st;
  st.append(std::string_view("LOAD DATA LOCAL INFILE "));
  append_load_term(st, path);
  if (l.opt_flags & LoadData::kReplace) st.append(std::string_view(" REPLACE"));
  if (l.opt_flags & LoadData::kIgnore) st.append(std::string_view(" IGNORE"));
  st.append(std::string_view(" INTO TABLE "));
  append_quoted_ident(st, l.table);
  st.append(std::string_view(" FIELDS TERMINATED BY "));
  append_load_term(st, l.field_term);
  if (l.opt_flags & LoadData::kOptEnclosed) st.append(std::string_view(" OPTIONALLY"));
  st.append(std::string_view(" ENCLOSED BY "));
  append_load_term(st, l.enclosed);
  st.append(std::string_view(" ESCAPED BY "));
  append_load_term(st, l.escaped);
  st.append(std::string_view(" LINES TERMINATED BY "));
  append_load_term(st, l.line_term);
  st.append(std::string_view(" STARTING BY "));
  append_load_term(st, l.line_start);
  if (l.skip_lines > 0) fmt::format_to(std::back_inserter(st), " IGNORE {} LINES", l.skip_lines);
  if (l.num_fields > 0) {
    st.append(std::string_view(" ("));
    ByteCursor names(l.field_names, ev.pos);
    for (std::uint32_t k = 0; k < l.num_fields; ++k) {
      if (k) st.push_back(',');
      append_quoted_ident(st, names.cstr());
    }
    st.push_back(')');
  }
  std::erase_if(pending_loads_, [&](const PendingLoad& p) { return p.file_id == l.file_id; });
  if (pending_loads_.size() > 64) pending_loads_.erase(pending_loads_.begin());
  pending_loads_.push_back(
      {l.file_id, l.thread_id, std::string(l.db), std::string(st.data(), st.size())});
}

void SqlSink::exec_load(const Event& ev, std::uint32_t file_id) {
  const auto p = std::find_if(pending_loads_.begin(), pending_loads_.end(),
                              [&](const PendingLoad& l) { return l.file_id == file_id; });
  if (p == pending_loads_.end())
    throw Error(
        ErrorCode::kBadEvent,
        "EXEC_LOAD for file id " + std::to_string(file_id) + " has no CREATE_FILE before it",
        ev.pos);
  auto it = std::back_inserter(buf_);
  if (!p->db.empty() && db_name(p->db) != st_.db) {
    st_.db = db_name(p->db);
    use_statement(st_.db);  // (safe for any name: a line break, a backslash, CR or NUL)
  }
  fmt::format_to(it, "SET TIMESTAMP={}", ev.header.timestamp);
  delimiter();
  if (!st_.thread_printed || p->thread_id != st_.thread_id) {
    st_.thread_printed = true;
    st_.thread_id = p->thread_id;
    fmt::format_to(it, "SET @@session.pseudo_thread_id={}", p->thread_id);
    delimiter();
  }
  append(p->statement);
  append("\n");
  delimiter(Output::Statement::Kind::kSql, true);  // the logged statement (LOAD DATA)
  pending_loads_.erase(p);
}

void SqlSink::write_event(const Event& ev, const FormatContext& ctx) {
  at_ = ev.pos;
  type_ = ev.header.type;
  try {
    write_event_text(ev, ctx);
  } catch (Error& e) {
    e.with_offset(ev.pos);
    e.with_event(std::string(event_type_name(ev.header.type)));
    throw;
  }
}

}  // namespace binrecover::recovery
