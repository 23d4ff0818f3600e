//! The agreement step of a collective call (layer 5, see `dist/mod.rs`): before any data
//! moves, every rank says what it was called with and whether it found its input bad, so
//! that a bad input is an `Err` on every rank and no rank waits in a collective that another
//! has given up (a root whose array had the wrong dims once left every other rank in
//! `MPI_Alltoallv` for ever).

use super::comm::dist_error;
use super::World;
use crate::error::Result;

/// One all-gather of `args` (what this rank was called with, which every rank must pass
/// alike) and `mine` (this rank's own verdict on its input). The same `Err` on every rank if
/// any rank found a problem or the ranks' arguments differ; `call` names the call.
pub(crate) fn agree(world: &World, call: &str, args: &str, mine: Result<()>) -> Result<()> {
    let mut msg = Vec::new();
    msg.push(u8::from(mine.is_err()));
    msg.extend((args.len() as u64).to_le_bytes());
    msg.extend(args.as_bytes());
    match &mine {
        // The call is named once, by the error every rank returns.
        Err(crate::error::Error::Dist { detail, .. }) => msg.extend(detail.as_bytes()),
        Err(e) => msg.extend(e.to_string().as_bytes()),
        Ok(()) => {}
    }
    let all = world.comm().all_gather(&msg)?;
    let parsed: Vec<(bool, String, String)> = all.iter().map(|m| parse(m)).collect();
    if let Some((q, (_, _, error))) = parsed.iter().enumerate().find(|(_, p)| p.0) {
        let detail = match world.size() {
            1 => error.clone(),
            size => format!("rank {q} of {size}: {error} (every rank returns this error)"),
        };
        return Err(dist_error(call, detail));
    }
    if let Some(q) = parsed.iter().position(|p| p.1 != parsed[0].1) {
        return Err(dist_error(
            call,
            format!(
                "the ranks called it differently: rank 0 with {}, rank {q} with {}; a collective call takes the same arguments on every rank",
                parsed[0].1, parsed[q].1
            ),
        ));
    }
    Ok(())
}

/// A rank's message: whether it failed, its arguments, its error.
fn parse(m: &[u8]) -> (bool, String, String) {
    let failed = m.first() == Some(&1);
    let len = m
        .get(1..9)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_le_bytes) as usize;
    let end = (9 + len).min(m.len());
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        failed,
        text(m.get(9..end).unwrap_or_default()),
        text(m.get(end..).unwrap_or_default()),
    )
}
