// A stable text dump of a graph, one node per line in topological order:
//
//   %3 = matmul(%0, %2) -> float32 {batch, features:128}
//   %2 = parameter w1 he -> float32 {features:784, features:128}
//
// Golden tests pin the DAG builder's output with it (decompositions, casts,
// inferred shapes and names).
#ifndef WEBNNM_ENGINE_DAG_DUMP_H_
#define WEBNNM_ENGINE_DAG_DUMP_H_

#include <string>

#include "engine/ir/graph.h"

namespace webnnm::dag {

std::string DumpGraph(const ir::Graph& graph);

}  // namespace webnnm::dag

#endif  // WEBNNM_ENGINE_DAG_DUMP_H_
