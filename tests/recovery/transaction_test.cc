#include "recovery/reading/transaction.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "binlog/events.h"

namespace binrecover::recovery {
namespace {

using binlog::Event;
using binlog::EventType;

// Events as the reader would hand them out. Each gets a distinct position and a 10-byte raw view
// so first_pos/end_pos are meaningful; the bodies are what the assembler looks at.
class Events {
 public:
  Event make(EventType t, binlog::EventBody body) {
    Event ev;
    ev.pos = next_pos_;
    ev.header.type = static_cast<std::uint8_t>(t);
    ev.body = std::move(body);
    ev.raw = binlog::Bytes(storage_.data(), storage_.size());
    next_pos_ += storage_.size();
    return ev;
  }
  Event maria_gtid(std::uint8_t flags, std::uint64_t seq) {
    binlog::MariaGtid g;
    g.seq_no = seq;
    g.flags = flags;
    return make(EventType::kMariaGtid, g);
  }
  Event mysql_gtid(std::int64_t gno) {
    binlog::Gtid g;
    g.gno = gno;
    return make(EventType::kGtid, g);
  }
  Event anonymous_gtid() {
    binlog::Gtid g;
    g.anonymous = true;
    return make(EventType::kAnonymousGtid, g);
  }
  Event query(std::string_view sql) {
    binlog::Query q;
    q.db = "shop";
    q.query = sql;
    return make(EventType::kQuery, q);
  }
  Event table_map(std::uint64_t id) {
    binlog::TableMap tm;
    tm.table_id = id;
    tm.db = "shop";
    tm.table = "t";
    return make(EventType::kTableMap, tm);
  }
  Event rows(std::uint64_t id, bool stmt_end) {
    binlog::Rows r;
    r.table_id = id;
    r.flags = stmt_end ? binlog::kStmtEndFlag : 0;
    return make(EventType::kWriteRowsV1, r);
  }
  Event xid(std::uint64_t x) { return make(EventType::kXid, binlog::Xid{x}); }
  Event intvar() { return make(EventType::kIntvar, binlog::Intvar{2, 10}); }
  Event rand() { return make(EventType::kRand, binlog::Rand{1, 2}); }
  Event user_var() {
    binlog::UserVar v;
    v.name = "a";
    return make(EventType::kUserVar, v);
  }
  Event rotate() {
    binlog::Rotate r;
    r.next_file = "mysql-bin.000002";
    return make(EventType::kRotate, r);
  }
  Event create_file(std::uint32_t id) {
    binlog::LoadData l;
    l.file_id = id;
    return make(EventType::kCreateFile, l);
  }
  Event append_block(std::uint32_t id) {
    return make(EventType::kAppendBlock, binlog::LoadBlock{id, {}});
  }
  Event file_ref(EventType t, std::uint32_t id) { return make(t, binlog::LoadFileRef{id}); }
  Event annotate(std::string_view sql) {
    return make(EventType::kMariaAnnotateRows, binlog::RowsQuery{sql});
  }
  // An event of a type binrecover does not know, as the reader passes on one its server flagged
  // ignorable (Aurora's padding, type 100).
  Event ignorable_unknown() {
    Event ev = make(EventType::kUnknown, binlog::Unknown{});
    ev.header.type = 100;
    ev.header.flags = binlog::kLogEventIgnorable;
    return ev;
  }

 private:
  std::vector<std::byte> storage_ = std::vector<std::byte>(10);
  std::uint64_t next_pos_ = 256;
};

constexpr std::uint8_t kTransactionalFlags =
    binlog::MariaGtid::kTransactional | binlog::MariaGtid::kAllowParallel;

// What came out of one push: kind, completeness and event types of each unit.
struct Unit {
  UnitKind kind;
  bool complete;
  std::vector<EventType> types;
  std::uint64_t first_pos;
  std::uint64_t end_pos;
};

class TransactionTest : public ::testing::Test {
 protected:
  // Feeds one event and returns the units it completed, consumed and recycled as the owner
  // would.
  std::vector<Unit> push(const Event& ev) {
    std::vector<Transaction*> ready;
    assembler_.push(ev, ready);
    std::vector<Unit> out;
    for (const Transaction* t : ready) {
      Unit u{t->kind, t->complete, {}, t->first_pos(), t->end_pos()};
      for (const Event& e : t->events) u.types.push_back(e.type());
      out.push_back(std::move(u));
    }
    assembler_.recycle();
    return out;
  }

  // Feeds all but the last event, expecting nothing out, then the last, returning its units.
  std::vector<Unit> push_all(const std::vector<Event>& evs) {
    for (std::size_t i = 0; i + 1 < evs.size(); ++i) {
      const std::vector<Unit> early = push(evs[i]);
      EXPECT_TRUE(early.empty()) << "a unit closed at event " << i;
    }
    return push(evs.back());
  }

  TransactionAssembler assembler_;
  Events e_;
};

TEST_F(TransactionTest, MariaDbGtidRowsXidIsOneTransaction) {
  const std::vector<Event> evs = {e_.maria_gtid(kTransactionalFlags, 1), e_.annotate("INSERT"),
                                  e_.table_map(5), e_.rows(5, true), e_.xid(77)};
  const std::vector<Unit> units = push_all(evs);
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].kind, UnitKind::kTransaction);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types, (std::vector<EventType>{
                                EventType::kMariaGtid, EventType::kMariaAnnotateRows,
                                EventType::kTableMap, EventType::kWriteRowsV1, EventType::kXid}));
  EXPECT_EQ(units[0].first_pos, evs.front().pos);
  EXPECT_EQ(units[0].end_pos, evs.back().end_pos());
  EXPECT_FALSE(assembler_.in_transaction());
}

TEST_F(TransactionTest, StatementEndInsideTheTransactionDoesNotCloseIt) {
  const std::vector<Event> evs = {e_.maria_gtid(kTransactionalFlags, 1),
                                  e_.table_map(5),
                                  e_.rows(5, true),
                                  e_.table_map(6),
                                  e_.rows(6, true),
                                  e_.xid(78)};
  const std::vector<Unit> units = push_all(evs);
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].types.size(), 6u);
}

TEST_F(TransactionTest, OlderMariaDbGtidFollowedByBegin) {
  const std::vector<Event> evs = {e_.maria_gtid(0, 1), e_.query("BEGIN"), e_.table_map(5),
                                  e_.rows(5, true), e_.query("COMMIT")};
  const std::vector<Unit> units = push_all(evs);
  ASSERT_EQ(units.size(), 1u);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types.size(), 5u);
}

TEST_F(TransactionTest, StandaloneGtidAndDdl) {
  const std::uint8_t standalone_ddl = binlog::MariaGtid::kStandalone | binlog::MariaGtid::kDdl;
  std::vector<Unit> units =
      push_all({e_.maria_gtid(standalone_ddl, 1), e_.query("CREATE TABLE t (a INT)")});
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].kind, UnitKind::kTransaction);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types, (std::vector<EventType>{EventType::kMariaGtid, EventType::kQuery}));

  units = push_all({e_.maria_gtid(standalone_ddl, 2), e_.query("DROP TABLE t")});
  ASSERT_EQ(units.size(), 1u);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types.size(), 2u);
}

TEST_F(TransactionTest, MySqlGtidBeginRowsXid) {
  const std::vector<Event> evs = {e_.mysql_gtid(23), e_.query("BEGIN"), e_.table_map(5),
                                  e_.rows(5, false), e_.rows(5, true),  e_.xid(9)};
  const std::vector<Unit> units = push_all(evs);
  ASSERT_EQ(units.size(), 1u);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types, (std::vector<EventType>{EventType::kGtid, EventType::kQuery,
                                                    EventType::kTableMap, EventType::kWriteRowsV1,
                                                    EventType::kWriteRowsV1, EventType::kXid}));
}

TEST_F(TransactionTest, MySqlAnonymousGtidAndDdl) {
  const std::vector<Unit> units =
      push_all({e_.anonymous_gtid(), e_.query("ALTER TABLE t ADD COLUMN b INT")});
  ASSERT_EQ(units.size(), 1u);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types, (std::vector<EventType>{EventType::kAnonymousGtid, EventType::kQuery}));
}

TEST_F(TransactionTest, BeginStatementCommitWithoutGtid) {
  const std::vector<Unit> units =
      push_all({e_.query("BEGIN"), e_.intvar(), e_.query("INSERT INTO t VALUES (NULL)"),
                e_.query("COMMIT")});
  ASSERT_EQ(units.size(), 1u);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types.size(), 4u);
}

TEST_F(TransactionTest, MySqlXaPrepareAndCommit) {
  std::vector<Unit> units = push_all(
      {e_.mysql_gtid(30), e_.query("XA START X'31',X'',1"), e_.table_map(5), e_.rows(5, true),
       e_.query("XA END X'31',X'',1"), e_.make(EventType::kXaPrepare, binlog::XaPrepare{})});
  ASSERT_EQ(units.size(), 1u);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types.size(), 6u);
  EXPECT_EQ(units[0].types.back(), EventType::kXaPrepare);

  units = push_all({e_.mysql_gtid(31), e_.query("XA COMMIT X'31',X'',1")});
  ASSERT_EQ(units.size(), 1u);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types, (std::vector<EventType>{EventType::kGtid, EventType::kQuery}));
}

TEST_F(TransactionTest, MySqlCompressedPayloadAndItsUnpackedEventsAreOneTransaction) {
  // The reader follows a TRANSACTION_PAYLOAD_EVENT with the events unpacked from it.
  const std::vector<Unit> units = push_all(
      {e_.mysql_gtid(40), e_.make(EventType::kTransactionPayload, binlog::TransactionPayload{}),
       e_.query("BEGIN"), e_.table_map(5), e_.rows(5, true), e_.xid(41)});
  ASSERT_EQ(units.size(), 1u);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types, (std::vector<EventType>{
                                EventType::kGtid, EventType::kTransactionPayload, EventType::kQuery,
                                EventType::kTableMap, EventType::kWriteRowsV1, EventType::kXid}));
}

TEST_F(TransactionTest, IntvarAndQueryOutsideBeginAreOneUnit) {
  std::vector<Unit> units = push_all({e_.intvar(), e_.query("INSERT INTO t VALUES (NULL)")});
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].kind, UnitKind::kTransaction);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types, (std::vector<EventType>{EventType::kIntvar, EventType::kQuery}));

  units = push_all({e_.rand(), e_.user_var(), e_.query("INSERT INTO t VALUES (RAND(), @a)")});
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].types,
            (std::vector<EventType>{EventType::kRand, EventType::kUserVar, EventType::kQuery}));
}

TEST_F(TransactionTest, MySql4LoadDataUnitsEndAtExecLoadOrDeleteFile) {
  // CREATE_FILE, APPEND_BLOCK, EXEC_LOAD: one unit; a failed load (DELETE_FILE) too, and the
  // statements after it are units of their own.
  std::vector<Unit> units =
      push_all({e_.create_file(1), e_.append_block(1), e_.file_ref(EventType::kExecLoad, 1)});
  ASSERT_EQ(units.size(), 1u);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types.size(), 3u);
  units = push_all({e_.create_file(2), e_.append_block(2), e_.file_ref(EventType::kDeleteFile, 2)});
  ASSERT_EQ(units.size(), 1u);
  EXPECT_TRUE(units[0].complete);
  units = push(e_.query("INSERT INTO t VALUES (1)"));
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].types, (std::vector<EventType>{EventType::kQuery}));
  // Another thread's statement between CREATE_FILE and EXEC_LOAD: the EXEC_LOAD stands alone.
  units = push_all({e_.create_file(3), e_.query("INSERT INTO u VALUES (2)")});
  ASSERT_EQ(units.size(), 1u);
  units = push(e_.file_ref(EventType::kExecLoad, 3));
  ASSERT_EQ(units.size(), 1u);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types, (std::vector<EventType>{EventType::kExecLoad}));
  units = push(e_.query("INSERT INTO t VALUES (3)"));
  ASSERT_EQ(units.size(), 1u);
}

TEST_F(TransactionTest, LoneQueryIsItsOwnUnit) {
  const std::vector<Unit> units = push(e_.query("CREATE DATABASE d"));
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].kind, UnitKind::kTransaction);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types.size(), 1u);
}

TEST_F(TransactionTest, NonTransactionalRowsEndAtStatementEnd) {
  const std::vector<Unit> units = push_all({e_.table_map(7), e_.rows(7, false), e_.rows(7, true)});
  ASSERT_EQ(units.size(), 1u);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types, (std::vector<EventType>{EventType::kTableMap, EventType::kWriteRowsV1,
                                                    EventType::kWriteRowsV1}));
}

TEST_F(TransactionTest, GtidThenGtidInterruptsTheFirst) {
  const Event g1 = e_.maria_gtid(kTransactionalFlags, 1);
  const Event tm = e_.table_map(5);
  EXPECT_TRUE(push(g1).empty());
  EXPECT_TRUE(push(tm).empty());
  const std::vector<Unit> units = push(e_.maria_gtid(kTransactionalFlags, 2));
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].kind, UnitKind::kTransaction);
  EXPECT_FALSE(units[0].complete);
  EXPECT_EQ(units[0].types, (std::vector<EventType>{EventType::kMariaGtid, EventType::kTableMap}));
  EXPECT_EQ(units[0].first_pos, g1.pos);
  EXPECT_EQ(units[0].end_pos, tm.end_pos());
  ASSERT_TRUE(assembler_.in_transaction());  // the second GTID opened a new one

  const std::vector<Unit> second = push_all({e_.table_map(5), e_.rows(5, true), e_.xid(3)});
  ASSERT_EQ(second.size(), 1u);
  EXPECT_TRUE(second[0].complete);
  EXPECT_EQ(second[0].types.size(), 4u);
  EXPECT_EQ(second[0].types.front(), EventType::kMariaGtid);
}

TEST_F(TransactionTest, BeginInsideATransactionInterruptsIt) {
  EXPECT_TRUE(push(e_.mysql_gtid(1)).empty());
  EXPECT_TRUE(push(e_.query("BEGIN")).empty());
  EXPECT_TRUE(push(e_.table_map(5)).empty());
  const std::vector<Unit> units = push(e_.query("BEGIN"));
  ASSERT_EQ(units.size(), 1u);
  EXPECT_FALSE(units[0].complete);
  EXPECT_EQ(units[0].types.size(), 3u);
  EXPECT_TRUE(assembler_.in_transaction());
}

TEST_F(TransactionTest, RotateAloneIsAMetaUnit) {
  const Event r = e_.rotate();
  const std::vector<Unit> units = push(r);
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].kind, UnitKind::kMeta);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types, (std::vector<EventType>{EventType::kRotate}));
  EXPECT_EQ(units[0].first_pos, r.pos);
  EXPECT_FALSE(assembler_.in_transaction());
}

TEST_F(TransactionTest, RotateInsideATransactionYieldsTheInterruptedOneThenTheMeta) {
  EXPECT_TRUE(push(e_.maria_gtid(kTransactionalFlags, 1)).empty());
  EXPECT_TRUE(push(e_.table_map(5)).empty());
  const std::vector<Unit> units = push(e_.rotate());
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0].kind, UnitKind::kTransaction);
  EXPECT_FALSE(units[0].complete);
  EXPECT_EQ(units[0].types.size(), 2u);
  EXPECT_EQ(units[1].kind, UnitKind::kMeta);
  EXPECT_TRUE(units[1].complete);
  EXPECT_EQ(units[1].types, (std::vector<EventType>{EventType::kRotate}));
  EXPECT_FALSE(assembler_.in_transaction());
}

TEST_F(TransactionTest, IgnorableUnknownEventInsideATransactionIsPartOfIt) {
  // Before the Xid: the rows keep their COMMIT (it used to end the transaction there, left
  // out as incomplete, and the Xid came out as a COMMIT of nothing).
  const std::vector<Event> evs = {e_.anonymous_gtid(), e_.query("BEGIN"),      e_.table_map(5),
                                  e_.rows(5, true),    e_.ignorable_unknown(), e_.xid(9)};
  const std::vector<Unit> units = push_all(evs);
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].kind, UnitKind::kTransaction);
  EXPECT_TRUE(units[0].complete);
  EXPECT_EQ(units[0].types.size(), 6u);
  EXPECT_EQ(units[0].types[4], static_cast<EventType>(100));
  // After BEGIN: the rows after it keep their BEGIN.
  const std::vector<Event> evs2 = {e_.maria_gtid(kTransactionalFlags, 2), e_.ignorable_unknown(),
                                   e_.table_map(5), e_.rows(5, true), e_.xid(10)};
  const std::vector<Unit> units2 = push_all(evs2);
  ASSERT_EQ(units2.size(), 1u);
  EXPECT_TRUE(units2[0].complete);
  EXPECT_EQ(units2[0].types.size(), 5u);
  EXPECT_FALSE(assembler_.in_transaction());
}

TEST_F(TransactionTest, IgnorableUnknownEventBetweenTransactionsIsAMetaUnit) {
  const std::vector<Unit> units = push(e_.ignorable_unknown());
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].kind, UnitKind::kMeta);
  EXPECT_FALSE(assembler_.in_transaction());
}

TEST_F(TransactionTest, FinishReturnsTheUnfinishedTransaction) {
  EXPECT_EQ(assembler_.finish(), nullptr);
  EXPECT_TRUE(push(e_.mysql_gtid(4)).empty());
  EXPECT_TRUE(push(e_.query("BEGIN")).empty());
  Transaction* t = assembler_.finish();
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->complete);
  EXPECT_EQ(t->kind, UnitKind::kTransaction);
  EXPECT_EQ(t->events.size(), 2u);
  EXPECT_FALSE(assembler_.in_transaction());
}

TEST(TransactionKeywordsTest, BeginCommitRollback) {
  EXPECT_TRUE(is_begin("BEGIN"));
  EXPECT_TRUE(is_begin("begin"));
  EXPECT_TRUE(is_begin(" START TRANSACTION;"));
  EXPECT_FALSE(is_begin("BEGIN NOT ATOMIC SELECT 1; END"));
  EXPECT_FALSE(is_begin("COMMIT"));
  EXPECT_TRUE(is_begin("XA START X'31',X'',1"));
  EXPECT_FALSE(is_begin("XA END X'31',X'',1"));
  EXPECT_TRUE(is_commit_or_rollback("COMMIT"));
  EXPECT_TRUE(is_commit_or_rollback("ROLLBACK\n"));
  EXPECT_TRUE(is_commit_or_rollback(std::string_view("COMMIT\0", 7)));
  EXPECT_FALSE(is_commit_or_rollback("ROLLBACK TO SAVEPOINT s"));
  EXPECT_TRUE(starts_with_keyword("XA END 'x'", "XA"));
  EXPECT_FALSE(starts_with_keyword("XACT", "XA"));
}

}  // namespace
}  // namespace binrecover::recovery
