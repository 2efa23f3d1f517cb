#ifndef EMBER_DISTRIBUTED_SHM_SEGMENTS_H_
#define EMBER_DISTRIBUTED_SHM_SEGMENTS_H_

// Names of the same-host all-reduce's shared-memory segments (Note
// [Same-host all-reduce]) and the sweep that removes the ones their creator
// left behind. A name says who made it:
//   /ember-gloo-<pid namespace inode>-<creator pid>-<random>
// so that a segment whose creator died before anyone unlinked it (killed
// while the group was being set up) can be recognised and removed by any
// process of the same pid namespace: a surviving rank, the next group's
// rank 0, or the launcher at the end of a round.

#include <string>

namespace ember::distributed {

// A fresh segment name for this process (shm_open form, with the slash).
std::string new_shm_segment_name();

// Unlinks every ember segment in /dev/shm made in this pid namespace by a
// process that no longer runs (zombies count as gone). Returns how many.
int sweep_dead_shm_segments();

// False once `pid` exited, zombies included.
bool process_alive(int pid);

}  // namespace ember::distributed

#endif  // EMBER_DISTRIBUTED_SHM_SEGMENTS_H_
