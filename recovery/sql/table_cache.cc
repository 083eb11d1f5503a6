#include "recovery/sql/table_cache.h"

#include "binlog/error.h"
#include "recovery/reading/statement_dbs.h"

namespace binrecover::recovery {

const SqlTable& TableCache::update(const binlog::Event& ev, const binlog::TableMap& tm,
                                   const binlog::FormatContext& ctx) {
  const std::size_t tail = !ev.in_payload && ctx.checksum == binlog::ChecksumAlg::kCrc32 ? 4 : 0;
  const std::size_t head = std::min<std::size_t>(ctx.header_length, ev.raw.size());
  const std::string_view sig(reinterpret_cast<const char*>(ev.raw.data()) + head,
                             ev.raw.size() - head - std::min(tail, ev.raw.size() - head));
  const std::uint64_t gen = opts_.schema != nullptr ? opts_.schema->generation() : 0;
  Entry& e = tables_[tm.table_id];
  if (e.valid && e.sig == sig && e.generation == gen) return e.table;
  try {
    e.valid = false;
    e.table.info = binlog::table_info(tm, ctx.mariadb);
    if (opts_.schema != nullptr) opts_.schema->complete(e.table.info, ev.pos, opts_.positional);
    // Renamed after the schema's lookup, which knows the tables by their old names.
    if (opts_.rewrites != nullptr)
      e.table.info.db = std::string(rewritten_database(e.table.info.db, *opts_.rewrites));
    e.table.json_as_text = opts_.json_as_text;
    e.table.prepare();
    e.table.has_triggers = opts_.schema != nullptr && opts_.schema->has_triggers(tm.db, tm.table);
    e.sig.assign(sig);
    e.generation = gen;
    e.valid = true;
  } catch (...) {
    tables_.erase(tm.table_id);
    throw;
  }
  return e.table;
}

}  // namespace binrecover::recovery
