//! Session memory per user and board (seed 001 AC-8): the ids of the last created batch and of
//! the last objects a command targeted, and the last turns of the conversation, all forgotten
//! after five minutes. Time is passed in (`Instant`), so tests control it.

use protocol::ObjectId;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How long a session remembers (AC-8).
pub const SESSION_TTL: Duration = Duration::from_secs(5 * 60);
/// Conversation turns kept for the LLM prompt.
pub const MAX_TURNS: usize = 7;

/// Who said a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speaker {
    User,
    Assistant,
}

/// One turn of the user's conversation with the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub speaker: Speaker,
    pub text: String,
}

#[derive(Debug, Clone)]
struct Stamped {
    ids: Vec<ObjectId>,
    at: Instant,
}

/// One user's memory on one board.
#[derive(Debug, Clone, Default)]
pub struct SessionMemory {
    created: Option<Stamped>,
    targeted: Option<Stamped>,
    turns: VecDeque<(Turn, Instant)>,
}

impl SessionMemory {
    /// An empty memory.
    pub fn new() -> Self {
        Self::default()
    }

    fn live(s: &Option<Stamped>, now: Instant) -> Option<&Stamped> {
        s.as_ref()
            .filter(|s| now.saturating_duration_since(s.at) < SESSION_TTL)
    }

    /// Records the ids a command created (its whole batch).
    pub fn remember_created(&mut self, ids: &[ObjectId], now: Instant) {
        if !ids.is_empty() {
            self.created = Some(Stamped {
                ids: ids.to_vec(),
                at: now,
            });
        }
    }

    /// Records the existing objects a command acted on.
    pub fn remember_targets(&mut self, ids: &[ObjectId], now: Instant) {
        if !ids.is_empty() {
            self.targeted = Some(Stamped {
                ids: ids.to_vec(),
                at: now,
            });
        }
    }

    /// The most recent live record: the last batch created, or the last objects acted on if that
    /// came later.
    fn latest(&self, now: Instant) -> Option<&Stamped> {
        match (
            Self::live(&self.created, now),
            Self::live(&self.targeted, now),
        ) {
            (Some(c), Some(t)) => Some(if t.at > c.at { t } else { c }),
            (c, t) => c.or(t),
        }
    }

    /// "it": the last object created (or last acted on, if more recent).
    pub fn it(&self, now: Instant) -> Option<ObjectId> {
        self.latest(now).and_then(|s| s.ids.last().cloned())
    }

    /// "them" / "those": every object of the last batch (or of the last command's targets).
    pub fn them(&self, now: Instant) -> Vec<ObjectId> {
        self.latest(now).map(|s| s.ids.clone()).unwrap_or_default()
    }

    /// Ids of the last created batch, if still remembered.
    pub fn last_created(&self, now: Instant) -> Vec<ObjectId> {
        Self::live(&self.created, now)
            .map(|s| s.ids.clone())
            .unwrap_or_default()
    }

    /// Adds a conversation turn, keeping the last [`MAX_TURNS`].
    pub fn push_turn(&mut self, turn: Turn, now: Instant) {
        self.turns.push_back((turn, now));
        while self.turns.len() > MAX_TURNS {
            self.turns.pop_front();
        }
    }

    /// The live turns, oldest first (at most [`MAX_TURNS`]).
    pub fn turns(&self, now: Instant) -> Vec<Turn> {
        self.turns
            .iter()
            .filter(|(_, at)| now.saturating_duration_since(*at) < SESSION_TTL)
            .map(|(t, _)| t.clone())
            .collect()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}
