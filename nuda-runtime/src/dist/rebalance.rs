//! `rebalance`: a distributed array's rows shared out again under a [`Split`] (layer 5, see
//! `dist/mod.rs`). Every rank reads its own rows, the ranks agree that the call is the same
//! everywhere and every input is good, then each rank sends every other rank the rows of its
//! own that the other keeps under the new split (its rows and its halo rows) in one
//! all-to-all. Every value is kept; the halo rows come fresh from their owners.

use super::array::{block_in, held, row_len, with_rows, NuDist};
use super::halo::meet;
use super::split::{self, Split};
use crate::array::NuArray;
use crate::element::{bytes, Stored};
use crate::error::Result;
use crate::shape::Shape;

impl<T: Stored, S: Shape> NuDist<T, S> {
    /// Moves rows between the ranks so that they are split as `split` says, keeping every
    /// value (an exchange in flight completes first; the halo rows are refreshed from their
    /// owners, as by `exchange`). Collective: every rank passes the same split. A bad split
    /// (weights that are not one finite, non-negative number per rank, or all zero; ranks
    /// that pass different splits; `Split::Measured` before any launch) is the same `Err` on
    /// every rank, before any row moves. The arrays of one `nudist` launch must be split
    /// alike: rebalance them all with the same split.
    ///
    /// ```
    /// use nuda_runtime::dist::{init, NuDist2, Split};
    /// let world = init()?;
    /// let mut a = NuDist2::<i32>::from_fn(&world, (6, 2), 1, |(i, j)| (i * 2 + j) as i32)?;
    /// a.rebalance(&Split::Weights(vec![1.0; world.size()]))?;
    /// assert_eq!(a.to_vec()?, (0..12).collect::<Vec<i32>>());
    /// # Ok::<(), nuda_runtime::Error>(())
    /// ```
    pub fn rebalance(&mut self, split: &Split) -> Result<()> {
        let world = self.world().clone();
        let mine = self.exchange_wait().and_then(|()| {
            split::check(split, world.size())?;
            self.own_rows()
        });
        let args = format!("{split:?} for an array of dims {:?}", self.dims());
        let verdict = mine.as_ref().map(drop).map_err(Clone::clone);
        super::agree::agree(&world, "NuDist::rebalance", &args, verdict)?;
        let own = mine?;
        let n = self.dims().extents()[0];
        let bounds = split::bounds(&world, n, split)?;
        let (row, old) = (row_len(self.dims()), self.rows());
        let keeps = |q: usize| held(n, self.halo(), &block_in(&bounds, q));
        let out: Vec<Vec<u8>> = (0..world.size())
            .map(|q| {
                let part = meet(&keeps(q), &old);
                if part.is_empty() {
                    return Vec::new();
                }
                let at = (part.start - old.start) * row;
                bytes(&own[at..at + part.len() * row]).into_owned()
            })
            .collect();
        let got = world.comm().all_to_all(&out)?;
        let mut data = Vec::with_capacity(keeps(world.rank()).len() * row);
        for part in &got {
            data.extend(super::decode::<T>(part)?);
        }
        let local = NuArray::from_vec(with_rows(self.dims(), keeps(world.rank()).len()), data)?;
        self.resplit(bounds, local);
        Ok(())
    }

    /// This rank's own rows, read from its local array.
    fn own_rows(&self) -> Result<Vec<T>> {
        let row = row_len(self.dims());
        let mut m = crate::memory::zeros::<T>(self.rows().len() * row)?;
        let at = (self.rows().start - self.held().start) * row;
        self.local().read_range(at, &mut m)?;
        Ok(m)
    }
}

#[cfg(test)]
mod test {
    use crate::dist::test::init_once;
    use crate::dist::{NuDist1, Split};

    #[test]
    fn a_bad_split_is_an_err_and_moves_nothing() -> crate::error::Result<()> {
        let world = init_once();
        let mut a = NuDist1::<u32>::from_fn(&world, 9, 1, |i| i as u32)?;
        let e = a.rebalance(&Split::Weights(vec![1.0, 2.0])).unwrap_err();
        assert!(e.to_string().contains("2 weights for 1 ranks"), "{e}");
        a.rebalance(&Split::Weights(vec![5.0]))?;
        assert_eq!(a.to_vec()?, (0..9).collect::<Vec<u32>>());
        assert_eq!(a.bounds(), &[0, 9]);
        Ok(())
    }
}
