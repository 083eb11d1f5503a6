#pragma once

#include <vector>

#include "recovery/reading/walker.h"
#include "recovery/sql/output.h"
#include "recovery/sql/schema.h"

namespace binrecover::recovery {

// Row changes as data (SQL output's --format=jsonl / --format=csv): one record per row change
// of the range and filters, in log order, with the transaction's GTID, the rows event's file
// and position and time, the table, the kind (insert, update, delete) and the row before and
// after by column name (the log's names, else --schema's and the log's own DDL, else @1, @2 ...).
//
// JSON values by type: integers, BIT and DECIMAL as numbers (DECIMAL exactly as stored),
// FLOAT/DOUBLE as numbers (shortest form that reads back the same), DATE/TIME/DATETIME/TIMESTAMP
// as strings ('2026-12-05 07:30:00.123456'), text as strings (UTF-8; latin1 converted from
// cp1252), ENUM as its name and SET as an array of names (numbers when the log names none),
// MySQL JSON as the document itself, NULL as null; bytes that are not text in their character
// set (BINARY, BLOB, GEOMETRY, strings of other character sets) as {"base64": "..."}.
// CSV (RFC 4180): time,gtid,file,pos,database,table,type,before,after, the last two the JSON
// objects of the row. Statement-format changes are not row changes: they are counted, and
// warned about once at the end.
enum class RowChangeFormat : std::uint8_t { kJsonl, kCsv };

RunStats write_row_changes(const std::vector<InputFile>& inputs, const DecodeOptions& decode,
                           const FilterOptions& filter, Schema* schema, RowChangeFormat format,
                           Output& out, const binlog::WarningSink& warn,
                           const ProgressFn& progress = {});

// The tables the range and filters change (row events' tables, the tables statements name),
// sorted, for --split-by=table: one more reading of the inputs.
std::vector<std::pair<std::string, std::string>> tables_changed(
    const std::vector<InputFile>& inputs, const DecodeOptions& decode, const FilterOptions& filter,
    const binlog::WarningSink& warn);

}  // namespace binrecover::recovery
