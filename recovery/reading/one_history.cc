#include "recovery/reading/one_history.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

#include "binlog/error.h"
#include "recovery/reading/gtid_set.h"
#include "recovery/reading/transaction.h"

namespace binrecover::recovery {

namespace {

// Which server's files an input is: its folder and its binlog base name ("mysql-bin" of
// "mysql-bin.000012"). Empty for standard input.
std::string server_key(const InputFile& in) {
  if (in.path == "-" || (in.path.empty() && !in.memory)) return {};
  const auto slash = in.path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : in.path.substr(0, slash);
  std::string base = in.display_name;
  const auto dot = base.rfind('.');
  if (dot != std::string::npos && dot + 1 < base.size() &&
      std::all_of(base.begin() + static_cast<std::ptrdiff_t>(dot) + 1, base.end(),
                  [](unsigned char c) { return std::isdigit(c) != 0; }))
    base.resize(dot);
  return dir + "\n" + base;
}

// The text of a Previous_gtids / Gtid_list event ("" for another event), and its flavour.
std::optional<std::pair<std::string, bool>> before_text(const binlog::Event& ev) {
  fmt::memory_buffer text;
  if (const auto* p = std::get_if<binlog::PreviousGtids>(&ev.body)) {
    append_gtid_set(text, p->data, ",");
    return std::pair{std::string(text.data(), text.size()), false};
  }
  if (const auto* l = std::get_if<binlog::MariaGtidList>(&ev.body)) {
    append_maria_gtid_list(text, *l);
    return std::pair{std::string(text.data(), text.size()), true};
  }
  return std::nullopt;
}

}  // namespace

OneHistory::OneHistory(const std::deque<InputFile>& inputs, const binlog::ReaderOptions& reader,
                       std::optional<std::uint64_t> start)
    : inputs_(inputs), reader_(reader), start_(start) {
  next_.assign(inputs.size(), -1);
  begins_.resize(inputs.size());
  std::size_t server_start = 0;
  for (std::size_t i = 0; i + 1 < inputs.size(); ++i) {
    const std::string a = server_key(inputs[i]), b = server_key(inputs[i + 1]);
    if (a.empty() || b.empty() || a == b) continue;
    FileStart next = file_start(inputs[i + 1], reader);
    if (next.before && next.with_first) {
      const FileStart last = file_start(inputs[i], reader);
      if (last.with_first && last.server_id != next.server_id &&
          last.with_first->mariadb() == next.with_first->mariadb()) {
        const std::set<std::string> x = last.with_first->origins(), y = next.with_first->origins();
        if (std::any_of(x.begin(), x.end(), [&](const std::string& o) { return y.count(o); })) {
          for (std::size_t j = server_start; j <= i; ++j) next_[j] = static_cast<long>(i + 1);
          begins_[i + 1] = std::move(next.before);
          active_ = true;
        }
      }
    }
    server_start = i + 1;
  }
  // What the last server's history holds at its end: its last file's start and transactions.
  if (active_) last_ = read_before(inputs.back(), std::numeric_limits<std::uint64_t>::max());
}

OneHistory::FileStart OneHistory::file_start(const InputFile& in,
                                             const binlog::ReaderOptions& reader) {
  FileStart out;
  try {
    const std::unique_ptr<binlog::Source> src = open_input(in);
    binlog::EventReader r(*src, reader);
    for (int k = 0; k < 12; ++k) {
      const std::optional<binlog::Event> ev = r.next();
      if (!ev) break;
      if (k == 0) out.server_id = ev->header.server_id;
      if (const auto text = before_text(*ev)) {
        out.before.emplace(text->second);
        out.before->add(text->first);
        out.with_first = out.before;
      } else if (is_gtid_event(ev->type())) {
        const std::string g = event_gtid(*ev);
        if (!g.empty() && out.with_first &&
            out.with_first->mariadb() == (g.find(':') == std::string::npos))
          out.with_first->add(g);
        break;
      }
    }
  } catch (const Error&) {
  }
  return out;
}

// What the first file read holds before the reading starts: what it begins after, and the
// transactions before `start` (a start position): an earlier server's copies of those are
// not read again.
std::optional<History> OneHistory::read_before(const InputFile& in,
                                               std::optional<std::uint64_t> start) const {
  std::optional<History> out;
  try {
    const std::unique_ptr<binlog::Source> src = open_input(in);
    binlog::EventReader r(*src, reader_);
    while (const std::optional<binlog::Event> ev = r.next()) {
      if (!out) {
        if (const auto text = before_text(*ev)) {
          out.emplace(text->second);
          out->add(text->first);
          if (!start || *start <= 4) break;
        }
        continue;
      }
      if (!ev->in_payload && ev->pos >= *start) break;
      if (is_gtid_event(ev->type())) {
        const std::string g = event_gtid(*ev);
        if (!g.empty() && out->mariadb() == (g.find(':') == std::string::npos)) out->add(g);
      }
    }
  } catch (const Error&) {  // (the reading proper says what is wrong with the file)
  }
  return out;
}

void OneHistory::begin_file(std::size_t i) {
  if (!active_) return;
  if (first_read_ == static_cast<std::size_t>(-1)) {
    // What the first file begins after is known too (a start position skips its event).
    first_read_ = i;
    if (i < inputs_.size()) known_ = read_before(inputs_[i], start_);
  }
  if (i == first_read_ || i >= begins_.size() || !begins_[i] || !known_ ||
      known_->mariadb() != begins_[i]->mariadb())
    return;
  const std::vector<std::string> missing = begins_[i]->missing_past(*known_);
  if (missing.empty()) return;
  std::string list;
  for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
  throw Error(ErrorCode::kTruncated,
              "the history has a gap: this file (another server's) begins after " + list +
                  ", which no file before it holds (a binlog missing from the archive?)");
}

OneHistory::Verdict OneHistory::transaction(std::size_t i, const std::string& gtid,
                                            const std::string& where) {
  if (!active_) return Verdict::kRead;
  const bool maria = gtid.find(':') == std::string::npos;
  if (!known_) known_.emplace(maria);
  if (known_->mariadb() != maria) return Verdict::kRead;
  if (known_->contains(gtid)) {
    ++read_before_;
    return Verdict::kReadBefore;
  }
  // An earlier server's transaction the last server never had: lost at a failover.
  if (i < next_.size() && next_[i] >= 0 && last_ && last_->mariadb() == maria &&
      !last_->contains(gtid)) {
    set_aside_.emplace(gtid, where);
    return Verdict::kNotInNext;
  }
  known_->add(gtid);
  return Verdict::kRead;
}

std::vector<std::string> OneHistory::at_end() const {
  std::vector<std::string> out;
  if (read_before_ > 0)
    out.push_back(std::to_string(read_before_) +
                  " transaction(s) read once: an earlier server's files had them already");
  if (!set_aside_.empty()) {
    std::string list;
    std::size_t n = 0;
    for (const auto& [gtid, where] : set_aside_) {
      if (++n > 10) {
        list += ", ...";
        break;
      }
      list += (list.empty() ? "" : ", ") + gtid + " (" + where + ")";
    }
    out.push_back(std::to_string(set_aside_.size()) +
                  " transaction(s) left out: the server whose files follow never had them "
                  "(lost at the failover; apply them by hand if they are wanted): " +
                  list);
  }
  return out;
}

}  // namespace binrecover::recovery
