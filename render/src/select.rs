//! The part of a board a `?selection=` names.

use protocol::{BoardObject, Kind};
use std::collections::HashSet;

/// A selection named an id the board does not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no object {0}")]
pub struct UnknownId(pub String);

/// The objects `ids` names, with everything inside a named frame (at any depth) and the
/// connectors whose two ends are both among them (or free). Board order is kept.
pub fn select(objects: &[BoardObject], ids: &[&str]) -> Result<Vec<BoardObject>, UnknownId> {
    let all: HashSet<&str> = objects.iter().map(|o| o.id.as_str()).collect();
    if let Some(bad) = ids.iter().find(|id| !all.contains(**id)) {
        return Err(UnknownId((*bad).to_owned()));
    }
    let mut chosen: HashSet<&str> = ids.iter().copied().collect();
    // Frame contents, to any depth.
    loop {
        let before = chosen.len();
        for o in objects {
            if o.parent
                .as_ref()
                .is_some_and(|p| chosen.contains(p.as_str()))
            {
                chosen.insert(o.id.as_str());
            }
        }
        if chosen.len() == before {
            break;
        }
    }
    let end_in = |e: &Option<protocol::Endpoint>, chosen: &HashSet<&str>| {
        e.as_ref()
            .and_then(protocol::Endpoint::bound_id)
            .is_none_or(|id| chosen.contains(id.as_str()))
    };
    let connectors: Vec<&str> = objects
        .iter()
        .filter(|o| o.kind == Kind::Connector && !chosen.contains(o.id.as_str()))
        .filter(|o| {
            let bound = o.references().next().is_some();
            bound && end_in(&o.from, &chosen) && end_in(&o.to, &chosen)
        })
        .map(|o| o.id.as_str())
        .collect();
    chosen.extend(connectors);
    Ok(objects
        .iter()
        .filter(|o| chosen.contains(o.id.as_str()))
        .cloned()
        .collect())
}
