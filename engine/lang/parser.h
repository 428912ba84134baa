// Parser for the WebNNM model language.
//
// A hand-written recursive-descent parser over the lexer's tokens. It follows
// the grammar of the specification with the errata (ERRATA 2-5): layers take
// zero or more arguments, values include maps and booleans, constants have a
// scalar and a tensor form, and `shape=` before a block's input or output
// shape is optional. Each parsing function carries its grammar rule as a
// comment.
//
// Errors never stop the parse: each is reported to `diagnostics` with what was
// expected and what was found, and the parser recovers at the next ',' or ')'
// inside an argument list, at the next ',' between layers, and at the next
// ';' between statements. The returned Module holds everything that parsed.
#ifndef WEBNNM_ENGINE_LANG_PARSER_H_
#define WEBNNM_ENGINE_LANG_PARSER_H_

#include "engine/base/diagnostics.h"
#include "engine/lang/ast.h"

namespace webnnm::lang {

// Parses the whole file. Check diagnostics.has_errors() for success.
Module Parse(const SourceFile& file, Diagnostics& diagnostics);

}  // namespace webnnm::lang

#endif  // WEBNNM_ENGINE_LANG_PARSER_H_
