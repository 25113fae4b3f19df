//! The workload: which action a client takes on each tick, in the configured shares.

use rand::Rng;
use std::str::FromStr;

/// Action shares in percent-like weights (they need not add up to 100).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mix {
    /// Move the client's own note.
    pub moves: u32,
    /// Create an extra note, or delete the one created before (alternating).
    pub creates: u32,
    /// Send a cursor position.
    pub presence: u32,
    /// Send an AI template command.
    pub ai: u32,
}

impl Default for Mix {
    fn default() -> Self {
        Mix {
            moves: 100,
            creates: 0,
            presence: 0,
            ai: 0,
        }
    }
}

impl Mix {
    /// All shares zero (to be filled from flags).
    pub fn zero() -> Self {
        Mix {
            moves: 0,
            creates: 0,
            presence: 0,
            ai: 0,
        }
    }

    fn total(&self) -> u32 {
        self.moves + self.creates + self.presence + self.ai
    }

    /// At least one share must be positive.
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.total() == 0 {
            anyhow::bail!("the mix has no positive share");
        }
        Ok(())
    }

    /// The share of actions that send a commit (moves, creates/deletes).
    pub fn commit_share(&self) -> f64 {
        f64::from(self.moves + self.creates) / f64::from(self.total().max(1))
    }

    /// Picks the next action.
    pub fn pick(&self, rng: &mut impl Rng) -> Action {
        let total = self.total().max(1);
        let mut r = rng.random_range(0..total);
        for (share, action) in [
            (self.moves, Action::Move),
            (self.creates, Action::CreateOrDelete),
            (self.presence, Action::Presence),
            (self.ai, Action::Ai),
        ] {
            if r < share {
                return action;
            }
            r -= share;
        }
        Action::Move
    }
}

impl std::fmt::Display for Mix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "moves={},creates={},presence={},ai={}",
            self.moves, self.creates, self.presence, self.ai
        )
    }
}

impl FromStr for Mix {
    type Err = anyhow::Error;

    /// `moves=90,creates=5,presence=5,ai=0`; keys left out are 0.
    fn from_str(s: &str) -> anyhow::Result<Mix> {
        let mut mix = Mix::zero();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| anyhow::anyhow!("mix entry {part:?} is not key=value"))?;
            let v: u32 = v
                .trim()
                .parse()
                .map_err(|_| anyhow::anyhow!("mix share {v:?} is not a whole number"))?;
            match k.trim() {
                "moves" | "move" => mix.moves = v,
                "creates" | "create" | "deletes" => mix.creates = v,
                "presence" | "cursor" => mix.presence = v,
                "ai" => mix.ai = v,
                other => anyhow::bail!("unknown mix key {other:?} (moves, creates, presence, ai)"),
            }
        }
        mix.validate()?;
        Ok(mix)
    }
}

/// One thing a client does on a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Move,
    CreateOrDelete,
    Presence,
    Ai,
}

/// AI commands that the template router answers without an LLM.
pub const AI_TEMPLATES: [&str; 4] = [
    "create a SWOT analysis",
    "make a kanban board with 3 columns",
    "create a retrospective board",
    "add a 2x2 grid of sticky notes",
];

/// Where a client's note sits: its own column, so clients do not pile up.
pub fn home(client: u32) -> (f64, f64) {
    let col = f64::from(client % 20);
    let row = f64::from(client / 20);
    (col * 250.0, row * 250.0)
}

/// The next position of a moving note: a small circle around home.
pub fn orbit(client: u32, step: u64) -> (f64, f64) {
    let (x, y) = home(client);
    let a = (step % 360) as f64 * std::f64::consts::PI / 180.0;
    ((x + 60.0 * a.cos()).round(), (y + 60.0 * a.sin()).round())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn parse_and_display() {
        let m: Mix = "moves=90,creates=5,presence=5,ai=0".parse().unwrap();
        assert_eq!(m.to_string(), "moves=90,creates=5,presence=5,ai=0");
        assert!("moves=x".parse::<Mix>().is_err());
        assert!("jumps=1".parse::<Mix>().is_err());
        assert!("moves".parse::<Mix>().is_err());
        assert!("".parse::<Mix>().is_err());
    }

    #[test]
    fn picks_follow_shares() {
        let m: Mix = "moves=70,creates=10,presence=20".parse().unwrap();
        let mut rng = StdRng::seed_from_u64(7);
        let mut counts = [0u32; 4];
        for _ in 0..10_000 {
            counts[m.pick(&mut rng) as usize] += 1;
        }
        assert!((6700..7300).contains(&counts[0]), "{counts:?}");
        assert!((800..1200).contains(&counts[1]), "{counts:?}");
        assert!((1800..2200).contains(&counts[2]), "{counts:?}");
        assert_eq!(counts[3], 0);
    }

    #[test]
    fn orbit_stays_in_range() {
        for c in [0, 19, 20, 199] {
            for s in 0..400 {
                let (x, y) = orbit(c, s);
                assert!((-100.0..50_000.0).contains(&x) && (-100.0..50_000.0).contains(&y));
            }
        }
    }
}
