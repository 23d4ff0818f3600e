//! Distributed arrays (layer 5, see `dist/mod.rs`): [`NuDist1`], [`NuDist2`], [`NuDist3`].
//! The first dimension is split into blocks, one per rank in rank order, as even as can be
//! (the first `n % size` ranks hold one row more; a rank may hold none). Each rank keeps its
//! block plus up to `halo` rows on either side in an ordinary lazily synchronised array, the
//! *local* array, whose row 0 is global row `first`.

use super::launch::DistLaunch;
use super::{decode, World};
use crate::array::NuArray;
use crate::element::{bytes, Stored};
use crate::error::Result;
use crate::kernel::{Capture, CaptureMut};
use crate::shape::Shape;
use std::cell::{Cell, Ref, RefCell};
use std::ops::Range;

/// An array whose first dimension is split over the ranks of a [`World`]; use the aliases.
pub struct NuDist<T: Stored, S: Shape> {
    /// The exchange `exchange_start` began, until it completes. First, so that it drops
    /// (waiting for its messages) before `world`, whose last clone ends MPI.
    pub(crate) pending: RefCell<Option<super::halo::Pending>>,
    /// Whether `exchange_start` ran since the last collective call that completed it (an
    /// `exchange`, a launch that read the array, a `rebalance`): every rank knows it alike,
    /// unlike `pending`, which a rank's own `exchange_wait` clears.
    pub(crate) started: Cell<bool>,
    world: World,
    dims: S,
    halo: usize,
    /// The split: rank `r` owns rows `bounds[r]..bounds[r + 1]`.
    bounds: Vec<usize>,
    owned: Range<usize>,
    held: Range<usize>,
    /// In a cell so that a launch that reads the array (through `&self`) can complete its
    /// exchange between its phases, when no view of it is alive.
    local: RefCell<NuArray<T, S>>,
}

/// A 1-D distributed array: each rank holds a block of elements.
pub type NuDist1<T> = NuDist<T, usize>;
/// A 2-D distributed array: each rank holds a block of rows.
pub type NuDist2<T> = NuDist<T, (usize, usize)>;
/// A 3-D distributed array: each rank holds a block of planes (the first index).
pub type NuDist3<T> = NuDist<T, (usize, usize, usize)>;

/// The rows rank `rank` of `size` owns out of `n`, split evenly.
#[cfg(test)]
pub(crate) fn block(n: usize, size: usize, rank: usize) -> Range<usize> {
    let b = super::split::even(n, size);
    b[rank]..b[rank + 1]
}

/// The rows rank `rank` owns under `bounds`.
pub(crate) fn block_in(bounds: &[usize], rank: usize) -> Range<usize> {
    bounds[rank]..bounds[rank + 1]
}

/// The rows a rank owning `owned` keeps: those, and `halo` more on either side within `0..n`.
pub(crate) fn held(n: usize, halo: usize, owned: &Range<usize>) -> Range<usize> {
    owned.start.saturating_sub(halo).min(n)..owned.end.saturating_add(halo).min(n)
}

/// Elements per row (per index of the first dimension).
pub(crate) fn row_len<S: Shape>(dims: S) -> usize {
    dims.extents()[1..S::RANK].iter().product()
}

/// `dims` with the first extent replaced.
pub(crate) fn with_rows<S: Shape>(dims: S, rows: usize) -> S {
    let mut e = dims.extents();
    e[0] = rows;
    S::from_extents(e)
}

impl<T: Stored, S: Shape> NuDist<T, S> {
    /// A zeroed distributed array of global `dims`, keeping `halo` rows of each neighbour.
    /// Collective: every rank passes the same `dims` and `halo` (each makes its part of one
    /// array), else the same `Err` on every rank, before anything is allocated.
    pub fn new(world: &World, dims: S, halo: usize) -> Result<Self> {
        Self::agreed(world, "NuDist::new", dims, halo)?;
        Self::build(world, dims, halo, |held| NuArray::new(held))
    }

    /// A distributed array with `f(global index)` at every index this rank keeps (its rows
    /// and its halo rows), filled on the host.
    /// Collective, as [`NuDist::new`].
    pub fn from_fn(world: &World, dims: S, halo: usize, mut f: impl FnMut(S) -> T) -> Result<Self> {
        Self::agreed(world, "NuDist::from_fn", dims, halo)?;
        let bounds = super::split::even(dims.extents()[0], world.size());
        let first = held(dims.extents()[0], halo, &block_in(&bounds, world.rank())).start;
        Self::build(world, dims, halo, |local| {
            NuArray::from_fn(local, |i| {
                let mut e = i.extents();
                e[0] += first;
                f(S::from_extents(e))
            })
        })
    }

    /// Splits rank `root`'s `whole` array (the other ranks pass `None`) over the ranks; each
    /// receives its rows and its halo rows. Collective: every rank passes the same `dims`,
    /// `halo` and `root`. A bad input on any rank (a `root` that is not a rank, no array or
    /// one of other dims on the root, arguments that differ between ranks) is the same `Err`
    /// on every rank, before any data moves.
    pub fn scatter(
        world: &World,
        dims: S,
        halo: usize,
        root: usize,
        whole: Option<&NuArray<T, S>>,
    ) -> Result<Self> {
        let made = Self::build(world, dims, halo, |held| NuArray::new(held));
        // Everything that can fail on one rank fails before the agreement, so that no rank
        // is left in the exchange (the root's download of its array included).
        let slice = match (world.rank() == root, whole) {
            (true, Some(w)) if w.dims() == dims => Some(w.try_as_slice()),
            _ => None,
        };
        let mine = match (&made, &slice) {
            (Err(e), _) | (_, Some(Err(e))) => Err(e.clone()),
            _ => scatter_input(world, dims, root, whole),
        };
        let args = format!("root {root}, dims {dims:?}, halo {halo}");
        super::agree::agree(world, "NuDist::scatter", &args, mine)?;
        let mut d = made?;
        let size = world.size();
        let mut out = vec![Vec::new(); size];
        if let Some(Ok(data)) = slice {
            let row = row_len(dims);
            for (q, o) in out.iter_mut().enumerate() {
                let h = held(dims.extents()[0], halo, &block_in(&d.bounds, q));
                *o = bytes(&data[h.start * row..h.end * row]).into_owned();
            }
        }
        let got = world.comm().all_to_all(&out)?;
        d.local
            .get_mut()
            .copy_from_slice(&decode::<T>(&got[root])?)?;
        Ok(d)
    }

    /// Whether every rank called `call` with these `dims` and `halo`, and they fit: ranks that
    /// disagree would each keep rows of a different split, and their halo exchanges would
    /// send rows of other lengths than the neighbour receives (Open MPI aborted the job on a
    /// truncated message, and `gather` lost a row).
    fn agreed(world: &World, call: &str, dims: S, halo: usize) -> Result<()> {
        let mine = dims
            .checked_len()
            .map(|_| ())
            .ok_or_else(|| scatter_error("the dims overflow usize"));
        let args = format!("dims {dims:?}, halo {halo}");
        super::agree::agree(world, call, &args, mine)
    }

    fn build(
        world: &World,
        dims: S,
        halo: usize,
        make: impl FnOnce(S) -> NuArray<T, S>,
    ) -> Result<Self> {
        let n = dims.extents()[0];
        let bounds = super::split::even(n, world.size());
        let owned = block_in(&bounds, world.rank());
        let held = held(n, halo, &owned);
        dims.checked_len()
            .ok_or_else(|| scatter_error("the dims overflow usize"))?;
        let local = RefCell::new(make(with_rows(dims, held.len())));
        let world = world.clone();
        let (pending, started) = (RefCell::new(None), Cell::new(false));
        Ok(NuDist {
            pending,
            started,
            world,
            dims,
            halo,
            bounds,
            owned,
            held,
            local,
        })
    }

    /// The split: rank `r` owns rows `bounds()[r]..bounds()[r + 1]` (`size + 1` bounds).
    pub fn bounds(&self) -> &[usize] {
        &self.bounds
    }

    /// Takes the split `bounds` and the local array that goes with it (`rebalance`).
    pub(crate) fn resplit(&mut self, bounds: Vec<usize>, local: NuArray<T, S>) {
        let n = self.dims.extents()[0];
        self.owned = block_in(&bounds, self.world.rank());
        self.held = held(n, self.halo, &self.owned);
        self.bounds = bounds;
        self.started.set(false);
        *self.local.get_mut() = local;
    }

    /// The global dims.
    pub fn dims(&self) -> S {
        self.dims
    }

    /// The halo width, in rows.
    pub fn halo(&self) -> usize {
        self.halo
    }

    /// The global rows this rank owns (possibly none).
    pub fn rows(&self) -> Range<usize> {
        self.owned.clone()
    }

    /// The global rows this rank keeps: its own and its halo rows. Row `held().start` is the
    /// local array's row 0.
    pub fn held(&self) -> Range<usize> {
        self.held.clone()
    }

    /// The world the array is split over.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// This rank's local array (its rows and halo rows). While an exchange begun by
    /// [`exchange_start`](Self::exchange_start) is in flight, its halo rows are those from
    /// before it; [`exchange_wait`](Self::exchange_wait) completes it.
    pub fn local(&self) -> Ref<'_, NuArray<T, S>> {
        self.local.borrow()
    }

    /// This rank's local array, for writing. An exchange in flight writes the halo rows
    /// when it completes.
    pub fn local_mut(&mut self) -> &mut NuArray<T, S> {
        self.local.get_mut()
    }

    /// The local array, for a launch's view or an exchange that completes.
    pub(crate) fn cell(&self) -> &RefCell<NuArray<T, S>> {
        &self.local
    }

    /// The whole array on rank `root` (`Some` there, `None` on the others), from every
    /// rank's own rows. Collective: every rank passes the same `root`; one that is not a
    /// rank, or roots that differ, are the same `Err` on every rank.
    pub fn gather(&self, root: usize) -> Result<Option<NuArray<T, S>>> {
        let size = self.world.size();
        let mine = match root < size {
            true => Ok(()),
            false => Err(not_a_rank("NuDist::gather", root, size)),
        };
        super::agree::agree(&self.world, "NuDist::gather", &format!("root {root}"), mine)?;
        let all = self.rows_of_all()?;
        Ok((self.world.rank() == root).then_some(all))
    }

    /// The whole array on every rank (an allgather of the ranks' rows). Collective.
    pub fn allgather(&self) -> Result<NuArray<T, S>> {
        self.rows_of_all()
    }

    /// The whole array's elements in row-major order, on every rank. Collective.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        Ok(self.allgather()?.try_as_slice()?.to_vec())
    }

    /// Every rank's own rows, assembled on every rank. A rank that cannot read its rows
    /// still takes part in the gather, with its error, so every rank returns it.
    fn rows_of_all(&self) -> Result<NuArray<T, S>> {
        let row = row_len(self.dims);
        let own = self.owned.start - self.held.start;
        let mine = crate::memory::zeros::<T>(self.owned.len() * row).and_then(|mut m| {
            self.local.borrow().read_range(own * row, &mut m)?;
            Ok(m)
        });
        let msg = match &mine {
            Ok(m) => [&[0u8][..], &bytes(m)].concat(),
            Err(e) => [&[1u8][..], e.to_string().as_bytes()].concat(),
        };
        let parts = self.world.comm().all_gather(&msg)?;
        if let Some((q, p)) = parts
            .iter()
            .enumerate()
            .find(|(_, p)| p.first() != Some(&0))
        {
            let why = String::from_utf8_lossy(p.get(1..).unwrap_or_default()).into_owned();
            let detail = format!("rank {q} could not read its rows: {why}");
            return Err(super::comm::dist_error("gathering a NuDist", detail));
        }
        let mut data = Vec::with_capacity(self.dims.extents().iter().product());
        for p in &parts {
            data.extend(decode::<T>(&p[1..])?);
        }
        NuArray::from_vec(self.dims, data)
    }
}

fn scatter_error(detail: &str) -> crate::error::Error {
    super::comm::dist_error("NuDist::scatter", detail.to_string())
}

/// `root` out of `0..size`.
fn not_a_rank(call: &str, root: usize, size: usize) -> crate::error::Error {
    let detail = format!(
        "root {root} is not a rank: the world has {size} (0 to {}); pass a rank below world.size()",
        size - 1
    );
    super::comm::dist_error(call, detail)
}

/// This rank's verdict on a scatter's input: the root is a rank, and on the root, the
/// array is there and has the dims.
fn scatter_input<T: Stored, S: Shape>(
    world: &World,
    dims: S,
    root: usize,
    whole: Option<&NuArray<T, S>>,
) -> Result<()> {
    if root >= world.size() {
        return Err(not_a_rank("NuDist::scatter", root, world.size()));
    }
    match (world.rank() == root, whole) {
        (false, _) => Ok(()),
        (true, None) => Err(scatter_error(
            "the root passed None; pass Some(array) on the root",
        )),
        (true, Some(w)) if w.dims() != dims => Err(scatter_error(&format!(
            "the root's array has dims {:?}, not {dims:?}",
            w.dims()
        ))),
        (true, Some(_)) => Ok(()),
    }
}

impl<T: Stored + std::fmt::Debug, S: Shape> std::fmt::Debug for NuDist<T, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "NuDist{}(dims {:?}, rank {} of {} owns rows {:?}, keeps {:?})",
            S::RANK,
            self.dims,
            self.world.rank(),
            self.world.size(),
            self.owned,
            self.held
        )
    }
}

/// What `annot!(nudist; ..)` reads through: a distributed array's local array with the
/// global row of its row 0, or any other capture as it is, at row 0 (replicated on every
/// rank, indexed globally).
#[diagnostic::on_unimplemented(
    message = "annot!(nudist; ..): `{Self}` is indexed in the loop but is not an array",
    label = "nudist loops index NuDist arrays, which each rank holds a block of, and other nuda arrays, which every rank holds whole"
)]
pub trait DistRef {
    /// The array the kernel reads.
    type Local: ?Sized;
    /// How the kernel holds it while the launch runs.
    type View<'a>: std::ops::Deref<Target = Self::Local>
    where
        Self: 'a;
    /// The array and its row 0's global row, recorded in `launch` under `name` with its
    /// `reach` (how far from the outer loop's row its indices reach, `None` where a first
    /// index is not that row plus a constant); an exchange in flight completes first, unless
    /// this is the launch's first phase, which may overlap it (`dist/phase.rs`).
    fn __nuda_dist_ref<'a>(
        &'a self,
        launch: &DistLaunch,
        name: &'static str,
        reach: Option<usize>,
    ) -> (Self::View<'a>, usize);
}

/// As [`DistRef`], for an array the loop writes.
#[diagnostic::on_unimplemented(
    message = "annot!(nudist; ..): `{Self}` is written in the loop but is not an array",
    label = "nudist loops write NuDist arrays (each rank its own rows) and other nuda arrays"
)]
pub trait DistMut {
    /// The array the kernel writes.
    type Local: ?Sized;
    /// The array and its row 0's global row, recorded in `launch` under `name`; `stray` is
    /// a write of the loop whose first index is not the outer loop's variable, if any (a
    /// distributed array may only be written at the rows the rank owns). An exchange in
    /// flight completes first.
    fn __nuda_dist_mut(
        &mut self,
        launch: &DistLaunch,
        name: &'static str,
        stray: Option<&'static str>,
    ) -> (&mut Self::Local, usize);
}

impl<T: Stored, S: Shape> DistRef for NuDist<T, S> {
    type Local = NuArray<T, S>;
    type View<'a> = Ref<'a, NuArray<T, S>>;
    fn __nuda_dist_ref<'a>(
        &'a self,
        launch: &DistLaunch,
        name: &'static str,
        reach: Option<usize>,
    ) -> (Self::View<'a>, usize) {
        // Uniform over the ranks, as the launch's phases must be: one rank has no peers, and
        // `started` is set and cleared by collective calls only.
        let pending = self.world.size() > 1 && self.started.get();
        launch.record(name, self, None, Some((pending, reach)));
        if launch.settles() {
            launch.settle(|| self.exchange_settle());
            self.started.set(false);
        }
        (self.local.borrow(), self.held.start)
    }
}

impl<T: Stored, S: Shape> DistMut for NuDist<T, S> {
    type Local = NuArray<T, S>;
    fn __nuda_dist_mut(
        &mut self,
        launch: &DistLaunch,
        name: &'static str,
        stray: Option<&'static str>,
    ) -> (&mut NuArray<T, S>, usize) {
        launch.record(name, self, stray, None);
        launch.settle(|| self.exchange_settle());
        self.started.set(false);
        (self.local.get_mut(), self.held.start)
    }
}

impl<C: Capture + ?Sized> DistRef for C {
    type Local = C;
    type View<'a>
        = &'a C
    where
        C: 'a;
    fn __nuda_dist_ref<'a>(
        &'a self,
        _: &DistLaunch,
        _: &'static str,
        _: Option<usize>,
    ) -> (&'a C, usize) {
        (self, 0)
    }
}

impl<C: CaptureMut + ?Sized> DistMut for C {
    type Local = C;
    fn __nuda_dist_mut(
        &mut self,
        _: &DistLaunch,
        _: &'static str,
        _: Option<&'static str>,
    ) -> (&mut C, usize) {
        (self, 0)
    }
}
