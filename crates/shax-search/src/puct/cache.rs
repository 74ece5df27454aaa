//! The evaluator's answers kept by position, so that a position the tree
//! reaches again by another order of moves (a transposition: placements or
//! independent moves in another order) is not evaluated twice.
//! lc0 keeps the same (its `NNCache`).
//!
//! Entries are keyed by [`Position::full_key`](shax_core::Position::full_key),
//! which covers everything an evaluator is given (board, hands, task,
//! counters, restrictions): equal keys mean the same network answer, up to a
//! 64-bit hash collision. Each entry holds the value and the logits of the
//! legal actions in [`Position::legal_actions`](shax_core::Position::legal_actions)
//! order.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Entries kept before the cache starts again empty: about 60 MB with the
/// logits of twenty actions each, a few moves of the largest searches.
const MAX_ENTRIES: usize = 1 << 19;

/// A hasher for keys that are already uniformly random (zobrist keys).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    start: u32,
    len: u32,
    value: f32,
}

/// Values and legal logits by full position key.
#[derive(Debug, Default)]
pub(super) struct EvalCache {
    entries: HashMap<u64, Entry, BuildHasherDefault<KeyHasher>>,
    logits: Vec<f32>,
}

impl EvalCache {
    /// The value and the legal actions' logits kept for `key`.
    pub(super) fn get(&self, key: u64) -> Option<(f32, &[f32])> {
        let e = self.entries.get(&key)?;
        let start = e.start as usize;
        Some((e.value, &self.logits[start..start + e.len as usize]))
    }

    /// Keeps `value` and `logits` (legal actions' order) for `key`; when
    /// full, everything kept so far is dropped first.
    pub(super) fn insert(
        &mut self,
        key: u64,
        value: f32,
        logits: impl ExactSizeIterator<Item = f32>,
    ) {
        if self.entries.len() >= MAX_ENTRIES || self.logits.len() + logits.len() > u32::MAX as usize
        {
            self.clear();
        }
        let start = self.logits.len() as u32;
        let len = logits.len() as u32;
        self.logits.extend(logits);
        self.entries.insert(key, Entry { start, len, value });
    }

    /// Drops every entry.
    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.logits.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_values_and_logits_by_key() {
        let mut c = EvalCache::default();
        c.insert(7, 0.5, [1.0, 2.0, 3.0].into_iter());
        c.insert(9, -0.25, [4.0].into_iter());
        assert_eq!(c.get(7), Some((0.5, &[1.0, 2.0, 3.0][..])));
        assert_eq!(c.get(9), Some((-0.25, &[4.0][..])));
        assert_eq!(c.get(8), None);
        assert_eq!(c.entries.len(), 2);
    }

    #[test]
    fn starts_again_empty_when_full() {
        let mut c = EvalCache::default();
        for k in 0..MAX_ENTRIES as u64 {
            c.insert(k, 0.0, std::iter::once(k as f32));
        }
        assert_eq!(c.entries.len(), MAX_ENTRIES);
        c.insert(u64::MAX, 1.0, std::iter::once(9.0));
        assert_eq!(c.entries.len(), 1);
        assert_eq!(c.get(0), None);
        assert_eq!(c.get(u64::MAX), Some((1.0, &[9.0][..])));
    }
}
