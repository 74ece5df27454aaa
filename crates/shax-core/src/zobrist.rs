//! Zobrist keys, generated at compile time from a fixed seed (stable across runs).

const fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A well-mixed 64-bit function of `x`, for keys of values without a table.
#[inline]
pub(crate) const fn mix(x: u64) -> u64 {
    splitmix(x ^ 0x5348_4158_5348_4158)
}

const fn table<const N: usize>(seed: u64) -> [u64; N] {
    let mut t = [0; N];
    let mut i = 0;
    while i < N {
        t[i] = splitmix(seed.wrapping_mul(1_000_003).wrapping_add(i as u64));
        i += 1;
    }
    t
}

pub(crate) const PIECE: [[u64; 24]; 2] = [table(1), table(2)];
pub(crate) const HAND: [[u64; 13]; 2] = [table(3), table(4)];
pub(crate) const SIDE: u64 = splitmix(5);
pub(crate) const REMOVALS: [u64; 2] = table(6);
pub(crate) const OPENING_REPLY: u64 = splitmix(7);
pub(crate) const FREEING: u64 = splitmix(8);
pub(crate) const JARE: [u64; 2] = table(9);
