//! One module per subcommand.

pub mod arena;
pub mod bench;
pub mod bench_mcts;
pub mod bench_uct;
pub mod ladder;
pub mod net;
pub mod perft;
pub mod play;
pub mod players;
pub mod progress;
pub mod serve;
pub mod tiers;
pub mod train;
