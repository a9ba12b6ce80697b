//! Parts of a run, for running one command as N independent processes (on
//! one machine or many): part `I/N` plays the shards `s` with `s % N == I`,
//! interleaved so that every part gets early and late games alike. Games are
//! seeded by their id, so the parts together hold exactly the games of the
//! whole run; [`crate::merge_parts`] joins them into one run directory.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Part `index` of `count` (0-based: `0/4` … `3/4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, try_from = "RawPart")]
pub struct Part {
    pub index: u64,
    pub count: u64,
}

/// A part as a run file stores it, checked by [`Part::new`] when read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPart {
    index: u64,
    count: u64,
}

impl TryFrom<RawPart> for Part {
    type Error = String;
    fn try_from(raw: RawPart) -> Result<Part, String> {
        Part::new(raw.index, raw.count)
    }
}

/// The most parts a run may be split into.
pub const MAX_PARTS: u64 = 100_000;

impl Part {
    /// Part `index` of `count`; `index < count ≤ MAX_PARTS`.
    pub fn new(index: u64, count: u64) -> Result<Part, String> {
        if count == 0 || count > MAX_PARTS {
            return Err(format!("the number of parts must be 1 to {MAX_PARTS}, got {count}"));
        }
        if index >= count {
            return Err(format!("part {index}/{count}: parts are numbered 0 to {} (I/N with I < N)", count - 1));
        }
        Ok(Part { index, count })
    }

    /// Whether shard (or batch) `s` is this part's.
    pub fn owns(&self, s: u64) -> bool {
        s % self.count == self.index
    }

    /// This part of the `k`-th of several runs played one after another
    /// (an arena's matchups, a study's variants): the parts take turns at
    /// the first shard, so runs of fewer shards than parts still spread over
    /// all parts. Part `I` plays the shards `s` with `(s + k) % N == I`.
    pub fn rotated(&self, k: u64) -> Part {
        Part { index: (self.index + self.count - k % self.count) % self.count, count: self.count }
    }

    /// This part's shards among `0..total`.
    pub fn shards(&self, total: u64) -> impl Iterator<Item = u64> {
        (self.index..total).step_by(self.count as usize)
    }
}

/// `owns` for an optional part: no part owns everything.
pub fn owns(part: Option<Part>, s: u64) -> bool {
    part.is_none_or(|p| p.owns(s))
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Part {
    type Err = String;
    /// `I/N`, e.g. `0/8`.
    fn from_str(s: &str) -> Result<Part, String> {
        let bad = || format!("`{s}` is not a part: write I/N with 0 ≤ I < N, e.g. 0/8");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (i, n) = (i.trim().parse::<u64>().map_err(|_| bad())?, n.trim().parse::<u64>().map_err(|_| bad())?);
        Part::new(i, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_every_shard_exactly_once() {
        for count in 1..=7u64 {
            for total in 0..=20u64 {
                let mut seen = vec![0u32; total as usize];
                for index in 0..count {
                    let p = Part::new(index, count).unwrap();
                    for s in p.shards(total) {
                        assert!(p.owns(s));
                        seen[s as usize] += 1;
                    }
                }
                assert!(seen.iter().all(|&n| n == 1), "count {count} total {total}: {seen:?}");
            }
        }
    }

    #[test]
    fn rotated_parts_still_cover_every_shard_once_and_spread_small_runs() {
        for count in 1..=5u64 {
            for k in 0..7u64 {
                let mut seen = [0u32; 9];
                for index in 0..count {
                    let p = Part::new(index, count).unwrap().rotated(k);
                    assert_eq!(p.count, count);
                    for s in p.shards(9) {
                        assert_eq!((s + k) % count, index);
                        seen[s as usize] += 1;
                    }
                }
                assert!(seen.iter().all(|&n| n == 1));
            }
        }
        // Four one-shard runs over four parts: each part plays one.
        let firsts: Vec<u64> =
            (0..4).map(|k| (0..4).find(|&i| Part::new(i, 4).unwrap().rotated(k).owns(0)).unwrap()).collect();
        assert_eq!(firsts, [0, 1, 2, 3]);
    }

    #[test]
    fn parse_and_display_round_trip_and_bad_parts_are_refused() {
        let p: Part = "3/8".parse().unwrap();
        assert_eq!(p, Part { index: 3, count: 8 });
        assert_eq!(p.to_string(), "3/8");
        for bad in ["8/8", "1/0", "x/2", "3", "-1/4", "1/200000"] {
            assert!(bad.parse::<Part>().is_err(), "{bad}");
        }
        assert!(owns(None, 5));
        // Run files are checked the same way.
        let json: Part = serde_json::from_str(r#"{"index":3,"count":8}"#).unwrap();
        assert_eq!(json, p);
        for bad in [r#"{"index":8,"count":8}"#, r#"{"index":0,"count":0}"#, r#"{"index":0}"#] {
            assert!(serde_json::from_str::<Part>(bad).is_err(), "{bad}");
        }
        assert!(!owns(Some(p), 4));
    }
}
