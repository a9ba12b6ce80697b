//! Ending an engine together with the processes it started.
//!
//! An engine runs in a process group of its own, so one signal reaches a
//! wrapper script and its children. A descendant that left the group (its
//! own session: `setsid`) is found by its parent links in `/proc` (Linux)
//! while the engine still lives, and killed by identity: its pid and start
//! time, so a pid the kernel has since given to another process is left
//! alone. The limit: a process that detached *and* lost its parent link
//! (a double fork, whose middle process exited) before the engine is stopped
//! is re-parented to init and cannot be told apart from anyone else's; a host
//! that must contain such engines runs them in a container or cgroup.

use std::collections::{HashMap, HashSet};

/// A process as the kernel knows it: pid and start time (clock ticks since boot).
pub(crate) type Identity = (i32, u64);

/// Parent pid and start time of `pid`, from `/proc/<pid>/stat`.
fn stat(pid: i32) -> Option<(i32, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses.
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After comm: state is field 3 of stat(5), ppid 4, starttime 22.
    Some((fields.get(1)?.parse().ok()?, fields.get(19)?.parse().ok()?))
}

/// Every living descendant of `root` (not `root` itself), by parent links.
pub(crate) fn descendants(root: i32) -> Vec<Identity> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut children: HashMap<i32, Vec<Identity>> = HashMap::new();
    for entry in dir.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
        if let Some((ppid, start)) = stat(pid) {
            children.entry(ppid).or_default().push((pid, start));
        }
    }
    let mut out = Vec::new();
    let mut queue = vec![root];
    while let Some(p) = queue.pop() {
        for &(pid, start) in children.get(&p).into_iter().flatten() {
            out.push((pid, start));
            queue.push(pid);
        }
    }
    out
}

fn signal(pid: i32, sig: i32) {
    // SAFETY: kill(2) only sends a signal; a negative pid names a process group.
    unsafe {
        libc::kill(pid, sig);
    }
}

/// Send `sig` to each process still alive under the same identity.
fn signal_each(procs: &HashSet<Identity>, sig: i32) {
    for &(pid, start) in procs {
        if stat(pid).map(|(_, s)| s) == Some(start) {
            signal(pid, sig);
        }
    }
}

/// Stop the engine `pid` (a group leader), its group and every descendant
/// (frozen first, so none forks or exits while the tree is read), then kill
/// them all, with `known`: descendants seen earlier (an engine about to quit
/// leaves its children to init, so the caller looks before it asks).
pub(crate) fn kill_tree(pid: i32, known: &[Identity]) {
    let mut all: HashSet<Identity> = known.iter().copied().collect();
    signal(-pid, libc::SIGSTOP);
    // Stopped processes cannot fork: a few rounds reach a fixed point.
    for _ in 0..8 {
        let found: HashSet<Identity> = descendants(pid).into_iter().collect();
        let new: HashSet<Identity> = found.difference(&all).copied().collect();
        if new.is_empty() {
            break;
        }
        signal_each(&new, libc::SIGSTOP);
        all.extend(new);
    }
    signal(-pid, libc::SIGKILL);
    signal_each(&all, libc::SIGKILL);
}

/// Kill processes seen as descendants earlier that still live (the engine
/// itself has exited).
pub(crate) fn kill_known(known: &[Identity]) {
    signal_each(&known.iter().copied().collect(), libc::SIGKILL);
}
