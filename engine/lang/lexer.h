// Lexer for the WebNNM model language.
//
// Splits a SourceFile into tokens, skipping whitespace (tab, LF, CR, space)
// and '#' comments that run to the end of the line. Characters that start no
// token are reported once each (as "unexpected character") and returned as
// kInvalid tokens so that the parser can carry on; malformed numbers (such as
// "1e" or "3x") are reported and returned as kNumber/kInvalid tokens. The
// token list always ends with one kEnd token.
#ifndef WEBNNM_ENGINE_LANG_LEXER_H_
#define WEBNNM_ENGINE_LANG_LEXER_H_

#include <vector>

#include "engine/base/diagnostics.h"
#include "engine/lang/token.h"

namespace webnnm::lang {

std::vector<Token> Tokenize(const SourceFile& file, Diagnostics& diagnostics);

}  // namespace webnnm::lang

#endif  // WEBNNM_ENGINE_LANG_LEXER_H_
