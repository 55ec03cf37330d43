#pragma once
// SLURM's compressed host lists, as SLURM_NODELIST holds them.
#include <string>
#include <vector>

namespace olv2 {

// Expands a SLURM host list into its host names, in order: comma-separated names in which each
// `[...]` holds numbers and ranges (`node[01-03,07],gpu-a[1-2]` is node01 node02 node03 node07
// gpu-a1 gpu-a2). A range is as wide as its first number (`[08-10]`: 08 09 10; `[8-10]`: 8 9
// 10); several brackets in one name multiply (`r[1-2]n[1-2]`: r1n1 r1n2 r2n1 r2n2). What is not
// such a list (an empty name, an unclosed or nested bracket, a range that runs backwards, more
// than a million hosts) is an input error saying what is wrong, without the variable's name.
std::vector<std::string> expand_slurm_hostlist(const std::string& hostlist);

}  // namespace olv2
