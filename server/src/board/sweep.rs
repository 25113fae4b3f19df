//! The picture sweep (ASSET-11). A picture registered on a board stays while the board shows
//! it, a kept version (HIST-4) shows it, or the board, while running, could bring it back by an
//! undo or redo; and for `--asset-grace-secs` after it was last seen in use or registered. Then
//! it goes, in two sweeps: the first dooms the registration (a board loaded from then on does not
//! know it; an upload or copy of the same picture revives it), the next checks again and drops
//! it. A running board checks and forgets in its own turn (`pictures.rs`), so no commit can start
//! using a picture between the check and the drop. Bytes no board registers go last.
//!
//! Every node of a cluster may sweep at once: each step is guarded in the store (a doom only
//! for a registration not seen since, a drop only of a doomed one).

use super::env::Env;
use super::pictures::{Held, pictures_of};
use crate::store::{Mark, Stale, StoreError, now_ms};
use protocol::{BoardId, BoardState};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

/// Registrations looked at in one sweep (the rest wait for the next).
const PER_SWEEP: usize = 10_000;

/// How often the sweep runs: half the grace, from 0.2 s to an hour.
pub fn every(grace: Duration) -> Duration {
    (grace / 2).clamp(Duration::from_millis(200), Duration::from_secs(3600))
}

/// What one sweep did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    pub touched: u64,
    pub doomed: u64,
    pub dropped: u64,
    /// Pictures whose bytes went (no board registers them).
    pub deleted: u64,
}

/// Runs the sweep every [`every`] until `stop` turns true.
pub fn spawn(env: Arc<Env>, mut stop: tokio::sync::watch::Receiver<bool>) {
    let period = every(env.config.asset_grace());
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {
                    if let Err(e) = sweep(&env).await {
                        tracing::warn!(error = %e, "picture sweep failed; it runs again later");
                    }
                }
                _ = stop.changed() => break,
            }
        }
    });
}

/// One sweep over the registrations not seen in use for the grace period.
pub async fn sweep(env: &Env) -> Result<Swept, StoreError> {
    let grace = i64::try_from(env.config.asset_grace().as_millis()).unwrap_or(i64::MAX);
    let seen_before = now_ms().saturating_sub(grace);
    let stale = env.store.stale_assets(seen_before, PER_SWEEP).await?;
    let mut out = Swept::default();
    for (board, regs) in by_board(stale) {
        sweep_board(env, &board, &regs, seen_before, &mut out).await?;
    }
    out.deleted = env.store.drop_orphan_assets().await?;
    if out != Swept::default() {
        tracing::info!(?out, "picture sweep");
    }
    Ok(out)
}

/// `stale` (ordered by board) grouped by board.
fn by_board(stale: Vec<Stale>) -> Vec<(BoardId, Vec<Stale>)> {
    let mut out: Vec<(BoardId, Vec<Stale>)> = Vec::new();
    for s in stale {
        match out.last_mut() {
            Some((b, regs)) if *b == s.board => regs.push(s),
            _ => out.push((s.board.clone(), vec![s])),
        }
    }
    out
}

async fn sweep_board(
    env: &Env,
    board: &BoardId,
    regs: &[Stale],
    seen_before: i64,
    out: &mut Swept,
) -> Result<(), StoreError> {
    let kept = env.store.version_pictures(board).await?;
    let doomed: Vec<String> = regs
        .iter()
        .filter(|r| r.doomed && !kept.contains(&r.sha256))
        .map(|r| r.sha256.clone())
        .collect();
    let Some(held) = held_by_board(env, board, doomed).await? else {
        // The board stopped while asked: it is looked at again next time.
        return Ok(());
    };
    let used: HashSet<&str> = held
        .in_use
        .iter()
        .chain(&kept)
        .map(String::as_str)
        .collect();
    let (in_use, unused): (Vec<&Stale>, Vec<&Stale>) =
        regs.iter().partition(|r| used.contains(r.sha256.as_str()));
    let names = |v: &[&Stale]| v.iter().map(|r| r.sha256.clone()).collect::<Vec<_>>();
    let fresh: Vec<&Stale> = unused.into_iter().filter(|r| !r.doomed).collect();
    let store = &env.store;
    out.touched += store
        .mark_assets(board, &names(&in_use), Mark::Touch)
        .await?;
    out.doomed += (store.mark_assets(board, &names(&fresh), Mark::Doom { seen_before })).await?;
    out.dropped += store
        .mark_assets(board, &held.forgotten, Mark::Drop)
        .await?;
    Ok(())
}

/// The pictures the board holds now and, of `doomed`, those it let go. A running board (on any
/// node) answers itself; otherwise its durable state does. None when it stopped while asked.
async fn held_by_board(
    env: &Env,
    board: &BoardId,
    doomed: Vec<String>,
) -> Result<Option<Held>, StoreError> {
    if let Some(h) = env.registry.live(board).await {
        return Ok(h.pictures(doomed).await.ok());
    }
    let in_use = durable_pictures(env, board).await?;
    let forgotten = doomed.into_iter().filter(|p| !in_use.contains(p)).collect();
    Ok(Some(Held {
        in_use: in_use.into_iter().collect(),
        forgotten,
    }))
}

/// The pictures a board that is not running shows, from the store.
async fn durable_pictures(env: &Env, board: &BoardId) -> Result<HashSet<String>, StoreError> {
    let Some(l) = env.store.load(board).await? else {
        return Ok(HashSet::new());
    };
    let mut doc = BoardState::from_objects(l.objects, env.config.max_objects);
    for (s, cmd) in &l.tail {
        doc.replay(&cmd.ops, *s);
    }
    Ok(pictures_of(doc.objects()).map(str::to_owned).collect())
}

/// The pictures `board` uses now (its objects, a running board's undo and redo history, its
/// kept versions): what counts against `--max-board-asset-bytes` (ASSET-5).
pub async fn in_use(env: &Env, board: &BoardId) -> Result<HashSet<String>, StoreError> {
    let mut used = env.store.version_pictures(board).await?;
    match held_by_board(env, board, Vec::new()).await? {
        Some(h) => used.extend(h.in_use),
        None => used.extend(durable_pictures(env, board).await?),
    }
    Ok(used)
}
