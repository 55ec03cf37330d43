// SLURM's compressed host lists (SLURM_NODELIST) expanded into host names.
#include "olv2/engine/distributed/slurm_hostlist.h"

#include <gtest/gtest.h>

#include "olv2/util/error.h"

namespace olv2 {
namespace {

using Hosts = std::vector<std::string>;

// The message of the input error that expanding `hostlist` throws ("" when none is thrown).
std::string input_error_of(const std::string& hostlist) {
  try {
    expand_slurm_hostlist(hostlist);
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::kBadInput) << hostlist;
    return error.what();
  }
  return "";
}

TEST(SlurmHostlist, PlainNamesStandForThemselves) {
  EXPECT_EQ(expand_slurm_hostlist("host"), Hosts{"host"});
  EXPECT_EQ(expand_slurm_hostlist("a,b"), (Hosts{"a", "b"}));
  EXPECT_EQ(expand_slurm_hostlist("gpu-a1.cluster,node_2"), (Hosts{"gpu-a1.cluster", "node_2"}));
}

TEST(SlurmHostlist, RangesAndSingleNumbersExpandInOrder) {
  EXPECT_EQ(expand_slurm_hostlist("node[1-3]"), (Hosts{"node1", "node2", "node3"}));
  EXPECT_EQ(expand_slurm_hostlist("node[01-03,07]"),
            (Hosts{"node01", "node02", "node03", "node07"}));
  EXPECT_EQ(expand_slurm_hostlist("node[5]"), Hosts{"node5"});
}

TEST(SlurmHostlist, ARangeIsAsWideAsItsFirstNumber) {
  EXPECT_EQ(expand_slurm_hostlist("n[8-10]"), (Hosts{"n8", "n9", "n10"}));
  EXPECT_EQ(expand_slurm_hostlist("n[08-10]"), (Hosts{"n08", "n09", "n10"}));
  EXPECT_EQ(expand_slurm_hostlist("n[098-100]"), (Hosts{"n098", "n099", "n100"}));
}

TEST(SlurmHostlist, SeveralGroupsFollowOneAnother) {
  EXPECT_EQ(expand_slurm_hostlist("node[01-03,07],gpu-a[1-2]"),
            (Hosts{"node01", "node02", "node03", "node07", "gpu-a1", "gpu-a2"}));
  EXPECT_EQ(expand_slurm_hostlist("login,node[1-2],x"), (Hosts{"login", "node1", "node2", "x"}));
}

TEST(SlurmHostlist, TextAfterABracketAndSeveralBracketsInOneName) {
  EXPECT_EQ(expand_slurm_hostlist("node[1-2]-ib"), (Hosts{"node1-ib", "node2-ib"}));
  EXPECT_EQ(expand_slurm_hostlist("r[1-2]n[1-2]"), (Hosts{"r1n1", "r1n2", "r2n1", "r2n2"}));
}

TEST(SlurmHostlist, WhatIsNotAHostListIsAnInputErrorSayingWhy) {
  EXPECT_EQ(input_error_of("node[3-"), "a [ without its ]");
  EXPECT_EQ(input_error_of("node3]"), "a ] without its [");
  EXPECT_EQ(input_error_of("node[[1]]"), "a [ inside brackets");
  EXPECT_EQ(input_error_of("node[5-2]"), "the range 5-2 runs backwards");
  EXPECT_EQ(input_error_of("node[3-]"),
            "[3-]: expected numbers and ranges such as 01-03,07 between the brackets");
  EXPECT_EQ(input_error_of("node[]"),
            "[]: expected numbers and ranges such as 01-03,07 between the brackets");
  EXPECT_EQ(input_error_of("node[a-b]"),
            "[a-b]: expected numbers and ranges such as 01-03,07 between the brackets");
  EXPECT_EQ(input_error_of(""), "an empty host name");
  EXPECT_EQ(input_error_of("a,,b"), "an empty host name");
  EXPECT_EQ(input_error_of("a,"), "an empty host name");
  EXPECT_EQ(input_error_of("a b"), "white space in a host name");
}

// A list that would expand into more hosts than any cluster has is refused before it fills the
// memory.
TEST(SlurmHostlist, AHugeListIsRefused) {
  EXPECT_EQ(input_error_of("n[0-999999999999]"), "more than 1048576 hosts");
  EXPECT_EQ(input_error_of("r[1-2000]n[1-2000]"), "more than 1048576 hosts");
}

}  // namespace
}  // namespace olv2
