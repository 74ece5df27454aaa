//! The player registry of the binary: `shax_bot::registry` (classic players,
//! `net:<checkpoint>`, `tier:<name>`), and splitting lists of specs.

pub use shax_bot::registry;

/// Splits a list of player specs. Specs are separated by `;`, or by `,` where
/// the next item is not a `key=value` parameter of the spec before it, so
/// `random,mcts:sims=50,c=1.4,alphabeta:depth=3` is three specs.
pub fn split_specs(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for group in list.split(';') {
        let mut first = true;
        for item in group.split(',') {
            let item = item.trim();
            let is_param = item.contains('=') && !item.contains(':');
            match out.last_mut() {
                Some(last) if is_param && !first => {
                    last.push(',');
                    last.push_str(item);
                }
                _ => out.push(item.to_string()),
            }
            first = false;
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_parameters_with_their_spec() {
        assert_eq!(
            split_specs("random,mcts:sims=50,c=1.4,alphabeta:depth=3"),
            ["random", "mcts:sims=50,c=1.4", "alphabeta:depth=3"]
        );
        assert_eq!(split_specs("greedy; random"), ["greedy", "random"]);
    }
}
