//! A request's game (rules, a start position and the actions since) and the
//! status of its position in words and fields.

use serde::Deserialize;
use serde_json::{Value, json};
use shax_core::{Action, Color, Game, Outcome, Position, Reason, Task};

use crate::error::ApiError;
use crate::state::{AppState, RuleSet};

/// The body of `POST /v1/legal` and `POST /v1/move`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRequest {
    /// A preset name; `shax` when absent.
    pub rules: Option<String>,
    /// The start position; the rules' start when absent.
    pub fen: Option<String>,
    /// Actions played from the start, in notation.
    #[serde(default)]
    pub moves: Vec<String>,
    /// `/v1/move`: a tier of the rules.
    pub tier: Option<String>,
    /// `/v1/move`: a player spec (a tier or a classic player within caps).
    pub player: Option<String>,
    /// `/v1/move`: the seed the decision derives from (0 when absent).
    pub seed: Option<u64>,
}

/// The rule set a request names.
///
/// # Errors
///
/// 400 naming `rules` for a name that is not a preset (files are never read).
pub fn rule_set<'a>(state: &'a AppState, name: Option<&str>) -> Result<&'a RuleSet, ApiError> {
    let name = name.unwrap_or("shax");
    state.rule_set(name).ok_or_else(|| {
        let known: Vec<_> = state
            .rule_sets
            .iter()
            .map(|s| s.rules.preset.name())
            .collect();
        ApiError::bad_field(
            "rules",
            format!("unknown rules '{name}' (presets: {})", known.join(", ")),
        )
    })
}

/// The game a request describes: its start, then every action of `moves`.
///
/// # Errors
///
/// 400 naming `fen` for a bad position string, or `moves` with the index of
/// the first action that does not parse or is not legal.
pub fn replay(set: &RuleSet, req: &GameRequest) -> Result<Game, ApiError> {
    let start = match &req.fen {
        None => Position::new(set.rules),
        Some(f) => {
            Position::from_fen(set.rules, f.trim()).map_err(|e| ApiError::bad_field("fen", e))?
        }
    };
    let mut game = Game::from_position(start);
    for (i, text) in req.moves.iter().enumerate() {
        let bad = |why: String| ApiError {
            index: Some(i),
            ..ApiError::bad_field("moves", format!("[{i}] '{text}': {why}"))
        };
        let action: Action = text.trim().parse().map_err(|e| bad(format!("{e}")))?;
        game.play(action).map_err(|e| bad(e.why))?;
    }
    Ok(game)
}

fn color_word(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn reason_words(o: Outcome) -> String {
    let loser = o.winner.map(|w| color_word(w.opponent())).unwrap_or("");
    match o.reason {
        Reason::Pieces => format!("{loser} is down to two pieces"),
        Reason::Blocked => format!("{loser} cannot move"),
        Reason::NoJare => "the board filled up with no line (jare) formed".to_string(),
        Reason::Repetition => "the same position occurred three times".to_string(),
        Reason::NoRemoval => "too many moves without a removal".to_string(),
        Reason::MaxActions => "the game reached the action limit".to_string(),
    }
}

/// The status in words, for people: "White to place (12 in hand)", "Black wins: ...".
pub fn status_text(pos: &Position, outcome: Option<Outcome>) -> String {
    if let Some(o) = outcome {
        let head = match o.winner {
            Some(w) => format!("{} wins", color_word(w)),
            None => "Draw".to_string(),
        };
        return format!("{head}: {}.", reason_words(o));
    }
    let me = pos.to_act();
    let who = color_word(me);
    match pos.task() {
        Task::Place => format!("{who} to place ({} in hand).", pos.hand(me)),
        Task::Move if pos.flies(me) => format!("{who} to move (flying: any empty point)."),
        Task::Move => format!("{who} to move."),
        Task::Remove => {
            let n = pos.removals_owed();
            let what = if n > 1 {
                format!("{n} pieces")
            } else {
                "a piece".to_string()
            };
            format!("{who} to remove {what} of {}.", color_word(me.opponent()))
        }
        Task::Free => format!(
            "{} is blocked: {who} must make a move that frees it.",
            color_word(me.opponent())
        ),
    }
}

fn per_color(f: impl Fn(Color) -> Value) -> Value {
    json!({ "white": f(Color::White), "black": f(Color::Black) })
}

/// The status of a game's current position, as JSON.
pub fn status(game: &Game) -> Value {
    let pos = game.position();
    let outcome = game.outcome();
    let result = outcome.map(|o| {
        json!({
            "winner": o.winner.map(Color::name),
            "reason": o.reason.name(),
            "text": reason_words(o),
        })
    });
    json!({
        "over": outcome.is_some(),
        "to_act": pos.to_act().name(),
        "task": outcome.is_none().then(|| pos.task().name()),
        "removals_owed": pos.removals_owed(),
        "hand": per_color(|c| json!(pos.hand(c))),
        "on_board": per_color(|c| json!(pos.board(c).count())),
        "flying": per_color(|c| json!(pos.flies(c))),
        "result": result,
        "text": status_text(pos, outcome),
        "actions": pos.action_count(),
    })
}

/// The pieces on the board by colour, as point names.
pub fn board(pos: &Position) -> Value {
    per_color(|c| json!(pos.board(c).iter().map(|p| p.name()).collect::<Vec<_>>()))
}
