#pragma once
// A process's place in a run that SLURM's srun started (--launcher slurm).
#include "olv2/engine/distributed/launch_environment.h"
#include "olv2/engine/distributed/launch_variables.h"

namespace olv2 {

// Reads srun's variables as mmcv's `_init_dist_slurm` does: the rank is SLURM_PROCID, the world
// size SLURM_NTASKS, the local rank SLURM_LOCALID; the ranks on this node are this node's count
// in SLURM_TASKS_PER_NODE ("2(x3),1": two tasks on each of the first three nodes, one on the
// fourth; SLURM_NODEID says which node this is), else SLURM_NTASKS_PER_NODE (which is only
// --ntasks-per-node's upper bound); the master is MASTER_ADDR, else the first host of
// SLURM_NODELIST, on MASTER_PORT, else 29500. Where mmcv takes the local rank as SLURM_PROCID
// modulo the visible GPUs, this takes SLURM_LOCALID (the same on whole nodes of equal GPUs).
// A missing variable, a malformed value or a node list that is not SLURM's host list
// (slurm_hostlist.h) is an input error naming the variable and what was expected.
LaunchEnvironment slurm_launch_environment(const LaunchVariables& variables);

}  // namespace olv2
