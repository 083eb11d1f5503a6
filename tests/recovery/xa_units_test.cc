#include "recovery/apply/xa_units.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace binrecover::recovery {
namespace {

// A unit's SQL as the writer hands it over: the statements, each marked.
struct UnitSql {
  std::string text;
  std::vector<Output::Statement> statements;
  UnitSql& add(const std::string& statement) {
    Output::Statement st;
    st.begin = text.size();
    text += statement;
    st.end = text.size();
    text += "\n/*!*/;\n";
    statements.push_back(st);
    return *this;
  }
};

TEST(XaUnits, PrepareGroupAndItsCommit) {
  UnitSql prepare;
  prepare.add("SET TIMESTAMP=1796433852")
      .add("XA START X'7831',X'',1")
      .add("BINLOG '\nAAAA\n'")
      .add("XA END X'7831',X'',1")
      .add("XA PREPARE X'7831',X'',1");
  const auto p = read_xa_unit(prepare.text, prepare.statements);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->prepare);
  EXPECT_EQ(p->xid, "X'7831',X'',1");

  UnitSql commit;
  commit.add("SET TIMESTAMP=1796433852").add("XA COMMIT X'7831',X'',1");
  const auto c = read_xa_unit(commit.text, commit.statements);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->prepare);
  EXPECT_EQ(c->xid, p->xid);

  UnitSql rollback;
  rollback.add("xa rollback X'7831',X'',1");
  const auto r = read_xa_unit(rollback.text, rollback.statements);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->xid, "X'7831',X'',1");
}

TEST(XaUnits, AnythingElseIsNoXaUnitOfTheWorkers) {
  UnitSql one_phase;  // (its xid would never match a prepared one; it is a unit of its own)
  one_phase.add("XA START X'31',X'',1")
      .add("XA END X'31',X'',1")
      .add("XA COMMIT X'31',X'',1 ONE PHASE");
  EXPECT_FALSE(read_xa_unit(one_phase.text, one_phase.statements));

  UnitSql other_xid;
  other_xid.add("XA START X'31',X'',1").add("XA END X'31',X'',1").add("XA PREPARE X'32',X'',1");
  EXPECT_FALSE(read_xa_unit(other_xid.text, other_xid.statements));

  UnitSql two;
  two.add("XA START X'31',X'',1").add("XA START X'31',X'',1").add("XA PREPARE X'31',X'',1");
  EXPECT_FALSE(read_xa_unit(two.text, two.statements));

  UnitSql plain;
  plain.add("BEGIN").add("COMMIT");
  EXPECT_FALSE(read_xa_unit(plain.text, plain.statements));

  EXPECT_FALSE(xa_xid("XA STARTX'31'", "START"));
  EXPECT_FALSE(xa_xid("XA START", "START"));
  EXPECT_EQ(xa_xid("XA  start  'a'  ;", "START").value_or(""), "'a'");
}

TEST(XaUnits, OnlyXidsAsMariaDbWritesThemAreTaken) {
  EXPECT_TRUE(plain_xid("X'7831',X'',1"));
  EXPECT_TRUE(plain_xid("X'',X'abCD',2147483647"));
  // (a log's text must not become SQL of its own in the XA ROLLBACK that repeats it)
  EXPECT_FALSE(plain_xid("X'31',X'',1; DROP DATABASE shop"));
  EXPECT_FALSE(plain_xid("'p1'"));
  EXPECT_FALSE(plain_xid("X'3g',X'',1"));
  EXPECT_FALSE(plain_xid("X'31',X'',"));
  UnitSql hostile;
  hostile.add("XA START X'31',X'',1; DROP DATABASE shop")
      .add("XA END X'31',X'',1; DROP DATABASE shop")
      .add("XA PREPARE X'31',X'',1; DROP DATABASE shop");
  EXPECT_FALSE(read_xa_unit(hostile.text, hostile.statements));
  UnitSql hostile_commit;
  hostile_commit.add("XA COMMIT X'31',X'',1;DROP DATABASE shop");
  EXPECT_FALSE(read_xa_unit(hostile_commit.text, hostile_commit.statements));
}

TEST(XaUnits, PreparedKeptUntilTakenOnce) {
  PreparedXas kept;
  WriteSet ws;
  kept.add("X'31',X'',1", 7, ws);
  EXPECT_FALSE(kept.take("X'32',X'',1"));
  const auto p = kept.take("X'31',X'',1");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->seq, 7u);
  EXPECT_FALSE(kept.take("X'31',X'',1"));
}

TEST(XaUnits, PreparedBounded) {
  PreparedXas kept;
  const WriteSet ws;
  for (int i = 0; i < 5000; ++i)
    kept.add("x" + std::to_string(i), static_cast<std::uint64_t>(i), ws);
  EXPECT_TRUE(kept.take("x4095"));
  EXPECT_FALSE(kept.take("x4096"));  // (its XA COMMIT is applied alone)
}

}  // namespace
}  // namespace binrecover::recovery
