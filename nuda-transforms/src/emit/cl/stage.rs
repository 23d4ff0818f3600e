//! `stage(..)` nests in OpenCL C (see `annot::stage` for the annotation, its legality and its
//! plan, which `ir::Stage` carries: the group's shape and each staged array's box).
//! The kernel runs one work-group per tile: the tile loops are the group ids, the element
//! loops the local ids. The staged loop runs in groups of `depth` iterations; before each, the
//! work-group copies the block of each staged array those iterations read (the box of the
//! reads' index positions: the loop's `depth` along `k`, the tile along an element variable,
//! widened by the reads' constant offsets) into a `local` array, each work-item copying every
//! group-size-th element from its own, between two barriers. Reads then come from the copy
//! through a helper that still checks the read's own index against the array's dims, at the
//! read's site: out of range is the same fault as without staging. Elements of a box outside
//! the array are not copied, and only such faulting reads would look at them.

use super::{stage_skew, ClEmitter};
use crate::base::ir::staging::{
    bound_names, element_vars, leading_binds, position, stage_body, staged_loop, Follows,
};
use crate::base::ir::*;
use crate::checks::sites::SiteKind;
use crate::emit::template::Ph;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// One staged array's box in local memory.
#[derive(Debug, Clone)]
pub(super) struct StagedArray {
    /// The `local` array's C name.
    local: String,
    /// Per index position: what it follows, and the lowest constant offset of the reads.
    follows: Vec<(Follows, i64)>,
    /// Per index position: the box's extent.
    extents: Vec<usize>,
    /// Per index position that follows no loop: the index, the same for every read.
    uniform: Vec<Option<Expr>>,
    /// Where the copy is swizzled (`stage_skew.rs`), each work-item's run of elements along
    /// the last position.
    swizzle: Option<usize>,
}

impl Staging {
    /// The box extents of staged array `name`, per index position, and whether its copy is
    /// swizzled.
    pub(super) fn extents(&self, name: &str) -> Option<(&[usize], bool)> {
        self.arrays
            .get(name)
            .map(|b| (b.extents.as_slice(), b.swizzle.is_some()))
    }
}

/// What reads in the staged loop need.
#[derive(Debug)]
pub(super) struct Staging {
    arrays: HashMap<String, StagedArray>,
    /// The C name of the loop's counter within its group of iterations.
    ke: String,
    /// The C names of the element loops' variables, by dimension.
    elems: Vec<String>,
    k: String,
    /// With `buffers: 2`, the C name of the copy this slice uses (0 or 1): each box sits at
    /// that multiple of its size in its `local` array.
    buf: Option<String>,
    /// The work-items of a group.
    group: usize,
    user_elems: HashMap<String, (usize, i64)>,
    locals: HashSet<String>,
}

impl ClEmitter<'_> {
    /// The element nest of a staged `tilem`, at kernel scope in a one-group-per-tile kernel.
    pub(super) fn staged_nest(&mut self, n: &Nest) {
        let Some(st) = n.stage.as_deref() else { return };
        // No plan: its error is reported, and the kernel is not built.
        if st.group.is_empty() {
            return;
        }
        let (body, lanes) = stage_body(n);
        let k = st.k.as_ref().map(ToString::to_string).unwrap_or_default();
        let user_elems = element_vars(n);
        let locals = bound_names(&n.body);
        let mut arrays = HashMap::new();
        // A `vector(w)` steps the last element loop.
        let vectored = lanes.map(|_| n.loops.len().saturating_sub(1));
        for b in &st.boxes {
            let staged = StagedArray {
                local: self.names.fresh(&format!("nu_stage_{}", b.array)),
                follows: b.follows.clone(),
                extents: b.extents.clone(),
                uniform: b.uniform.clone(),
                swizzle: stage_skew::skews(st, b, vectored),
            };
            arrays.insert(b.array.to_string(), staged);
        }
        self.declare_elements(n, &arrays);
        let elems = n.loops.iter().map(|l| self.var(&l.var)).collect();
        let staging = Staging {
            arrays,
            ke: String::new(),
            elems,
            k,
            buf: None,
            group: st.group.iter().map(|d| d.1).product(),
            user_elems,
            locals,
        };
        match lanes {
            Some(l) => self.in_lanes(l, |e| e.staged_body(st, staging, body)),
            None => self.staged_body(st, staging, body),
        }
    }

    /// The statements of a staged nest: before the staged loop, the loop through local
    /// memory, after it.
    fn staged_body(&mut self, st: &Stage, staging: Staging, body: &Block) {
        let found = staged_loop(body, &staging.k);
        let (Some((at, slot, range, kbody)), Some(k)) = (found, &st.k) else {
            // No staged loop: the loop variables (which the box's origin reads), one copy of
            // the tile the body reads, then the rest of the body.
            let binds = leading_binds(body);
            self.stmts(&body.stmts[..binds]);
            self.copies(&staging, "");
            self.line("barrier(CLK_LOCAL_MEM_FENCE);");
            self.staging = Some(Rc::new(staging));
            self.stmts(&body.stmts[binds..]);
            if let Some(t) = &body.tail {
                self.expr_stmt(t);
            }
            self.staging = None;
            return;
        };
        self.stmts(&body.stmts[..at]);
        self.staged_loop(st, k, staging, (slot, range, kbody));
        self.stmts(&body.stmts[at + 1..]);
        if let Some(t) = &body.tail {
            self.expr_stmt(t);
        }
    }

    /// The `local` arrays (at kernel scope, as OpenCL C requires), the element variables
    /// from the local ids, and the work-item's number in its group.
    fn declare_elements(&mut self, n: &Nest, arrays: &HashMap<String, StagedArray>) {
        let copies = n.stage.as_ref().map_or(1, |st| st.buffers);
        let mut sorted: Vec<(&String, &StagedArray)> = arrays.iter().collect();
        sorted.sort_by(|a, b| a.1.local.cmp(&b.1.local));
        for (name, b) in sorted {
            let fill = self
                .env
                .capture_fill(&syn::Ident::new(name, proc_macro2::Span::call_site()));
            let size = b.extents.iter().product::<usize>() * copies;
            if b.swizzle.is_some() {
                self.swizzle_helper();
            }
            let elem = Ph::elem(fill.unwrap_or_default());
            self.line(nuda_abi::dialect::Mk::shared_array(
                &elem,
                &b.local,
                &size.to_string(),
            ));
            // The box's first index per position, set by each copy, read by each read.
            let origins: Vec<String> = (0..b.extents.len())
                .map(|p| format!("{}_o{p} = 0", b.local))
                .collect();
            self.line(format!("nu_idx {};", origins.join(", ")));
        }
        for (d, l) in n.loops.iter().enumerate() {
            let c = self.names.declare(&l.var);
            // A dmine after stage steps the element loops: a work-item starts its block.
            let group = n.stage.as_ref().and_then(|st| st.group.get(d));
            let step = group.map_or(1, |g| g.0);
            let id = match step {
                1 => format!("get_local_id({d})"),
                s => format!("get_local_id({d}) * {s}"),
            };
            let v = Ph::op(l.slot, "from_int", &[&id]);
            self.line(format!("{} {c} = {v};", Ph::ty(l.slot)));
        }
        self.line("nu_idx nu_lid = get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2));");
    }

    /// The staged loop: full groups of `depth` iterations through local memory, then the rest.
    fn staged_loop(
        &mut self,
        st: &Stage,
        k: &syn::Ident,
        mut staging: Staging,
        (slot, r, body): (Slot, &Range, &Block),
    ) {
        let t = Ph::ty(slot);
        let (a, step) = (self.names.fresh("nu_ka"), self.names.fresh("nu_ks"));
        let (n, kt, ke, kr) = (
            self.names.fresh("nu_kn"),
            self.names.fresh("nu_kt"),
            self.names.fresh("nu_ke"),
            self.names.fresh("nu_kr"),
        );
        let start = self.expr(&r.start);
        let st_v = r
            .step
            .as_ref()
            .map_or_else(|| Ph::op(slot, "from_int", &["1"]), |s| self.expr(s));
        let trips = self.trips(r, slot);
        self.line("{");
        self.indent += 1;
        self.line(format!("{t} {a} = {start}, {step} = {st_v};"));
        self.line(format!("nu_idx {n} = {trips};"));
        let value = |c: &str| {
            Ph::op(
                slot,
                "add",
                &[
                    &a,
                    &Ph::op(slot, "mul", &[&Ph::op(slot, "from_int", &[c]), &step]),
                ],
            )
        };
        let d = st.depth;
        self.line(format!(
            "for (nu_idx {kt} = 0; {kt} + {d} <= {n}; {kt} += {d}) {{"
        ));
        self.indent += 1;
        // One copy: every work-item must be done reading the last slice before it is
        // overwritten. Two: slice `s` is written while `s - 1` is read from the other copy,
        // and the barrier after slice `s - 1`'s copy already follows every read of `s - 2`.
        if st.buffers == 2 {
            let buf = self.names.fresh("nu_kb");
            self.line(format!("nu_idx {buf} = {kt} / {d} % 2;"));
            staging.buf = Some(buf);
        } else {
            self.line("barrier(CLK_LOCAL_MEM_FENCE);");
        }
        let first = value(&kt);
        self.copies(&staging, &format!("{t} nu_k0 = {first};"));
        self.line("barrier(CLK_LOCAL_MEM_FENCE);");
        // A GPU runs the slice unrolled: its loop counter and branch would take issue slots
        // from the multiply-adds, and its reads' addresses become constants.
        self.line("NU_UNROLL");
        self.line(format!("for (nu_idx {ke} = 0; {ke} < {d}; {ke}++) {{"));
        staging.ke = ke.clone();
        let saved = self.staging.replace(Rc::new(staging));
        self.k_iteration(k, slot, &value(&format!("{kt} + {ke}")), body);
        self.staging = saved;
        self.line("}");
        self.indent -= 1;
        self.line("}");
        self.line(format!(
            "for (nu_idx {kr} = {n} / {d} * {d}; {kr} < {n}; {kr}++) {{"
        ));
        self.k_iteration(k, slot, &value(&kr), body);
        self.line("}");
        self.indent -= 1;
        self.line("}");
    }

    /// One iteration of the staged loop's body, with `k` set to `value`.
    fn k_iteration(&mut self, k: &syn::Ident, slot: Slot, value: &str, body: &Block) {
        self.names.push();
        self.indent += 1;
        self.depth += 1;
        let c = self.names.declare(k);
        self.line(format!("{} {c} = {value};", Ph::ty(slot)));
        self.body(body);
        self.depth -= 1;
        self.indent -= 1;
        self.names.pop();
    }
}

/// The copies into local memory, and the reads from them.
impl ClEmitter<'_> {
    /// Every staged array's box copied by the work-group; `first` declares `nu_k0`, the first
    /// value of the staged loop in this group of iterations.
    fn copies(&mut self, staging: &Staging, first: &str) {
        self.line("{");
        self.indent += 1;
        if !first.is_empty() {
            self.line(first);
        }
        let group = staging.group;
        let mut sorted: Vec<(&String, &StagedArray)> = staging.arrays.iter().collect();
        sorted.sort_by(|a, b| a.1.local.cmp(&b.1.local));
        for (name, b) in sorted {
            self.copy(staging, name, b, group);
        }
        self.indent -= 1;
        self.line("}");
    }

    /// One array's box: element `f` of the box by work-item `f % group`, or, where the box's
    /// rows and size divide evenly, four neighbouring elements a work-item (`NU_COPY4`,
    /// 128-bit loads on a GPU).
    fn copy(&mut self, staging: &Staging, name: &str, b: &StagedArray, group: usize) {
        let id = syn::Ident::new(name, proc_macro2::Span::call_site());
        let c = self.var(&id);
        let origins: Vec<String> = (0..b.follows.len())
            .map(|p| self.origin(staging, b, p))
            .collect();
        let size: usize = b.extents.iter().product();
        // Every work-item sets the origins, also one with no element of the box to copy.
        for (p, o) in origins.iter().enumerate() {
            self.line(format!("{}_o{p} = {o};", b.local));
        }
        let rank = b.extents.len();
        let quad = if b.extents[rank - 1] % 4 == 0 && size % (4 * group) == 0 {
            4
        } else {
            1
        };
        self.copy_loop(size, quad, group);
        for p in 0..rank {
            let stride: usize = b.extents[p + 1..].iter().product();
            self.line(format!(
                "nu_idx nu_x{p} = {}_o{p} + nu_f / {stride} % {};",
                b.local, b.extents[p]
            ));
        }
        // A swizzled copy's four from `nu_f` (a multiple of 4) stay neighbours.
        let place = match (b.swizzle, b.extents.last()) {
            (Some(_), Some(&row)) if quad == 4 => stage_skew::swizzled_group("nu_f", row),
            (Some(_), Some(&row)) => stage_skew::swizzled("nu_f", row),
            _ => "nu_f".to_string(),
        };
        let to = match &staging.buf {
            Some(k) => format!("{k} * {size} + {place}"),
            None => place,
        };
        self.copy_elements(&id, &c, b, quad, &to);
        self.indent -= 1;
        self.line("}");
    }

    /// The loop over a work-item's share of a box of `size` elements, `quad` at a time,
    /// setting `nu_f`, the first element's number in the box.
    fn copy_loop(&mut self, size: usize, quad: usize, group: usize) {
        if size.is_multiple_of(quad * group) {
            // As many elements for every work-item: a constant trip count, which a GPU
            // unrolls (no counter, no branch, constant offsets).
            self.line("NU_UNROLL");
            self.line(format!(
                "for (nu_idx nu_c = 0; nu_c < {}; nu_c++) {{",
                size / (quad * group)
            ));
            self.indent += 1;
            let f = format!("nu_lid + nu_c * {group}");
            self.line(match quad {
                4 => format!("nu_idx nu_f = ({f}) * 4;"),
                _ => format!("nu_idx nu_f = {f};"),
            });
        } else {
            self.line(format!(
                "for (nu_idx nu_f = nu_lid; nu_f < {size}; nu_f += {group}) {{"
            ));
            self.indent += 1;
        }
    }

    /// The copy of element `nu_f` (or the four from it) of `c`'s box to place `to` of the
    /// local array, each where it is inside the array.
    fn copy_elements(&mut self, id: &syn::Ident, c: &str, b: &StagedArray, quad: usize, to: &str) {
        let rank = b.extents.len();
        let mut off = "nu_x0".to_string();
        for p in 1..rank {
            off = format!("({off}) * {c}__d{p} + nu_x{p}");
        }
        let fill = self.env.capture_fill(id).unwrap_or_default();
        let (data, local) = (Ph::data(fill, c), &b.local);
        // Whether the element `e` past `nu_f` is inside the array; an origin below 0 wrapped
        // around, so the last index is compared before anything is added to it.
        let (l, all): (usize, Vec<String>) = (
            rank - 1,
            (0..rank - 1)
                .map(|p| format!("nu_x{p} < {c}__d{p}"))
                .collect(),
        );
        let inside = |e: &str| -> String {
            let last = match e {
                "" => format!("nu_x{l} < {c}__d{l}"),
                e => format!("nu_x{l} < {c}__d{l} && {e} < {c}__d{l} - nu_x{l}"),
            };
            all.iter()
                .cloned()
                .chain([last])
                .collect::<Vec<_>>()
                .join(" && ")
        };
        if quad == 4 {
            let (whole, one) = (inside("3"), inside("nu_e"));
            self.line(format!(
                "if ({whole}) NU_COPY4(&{local}[{to}], &{data}[{off}]);"
            ));
            self.line(format!("else for (nu_idx nu_e = 0; nu_e < 4; nu_e++) if ({one}) {local}[{to} + nu_e] = {data}[{off} + nu_e];"));
        } else {
            self.line(format!(
                "if ({}) {local}[{to}] = {data}[{off}];",
                inside("")
            ));
        }
    }

    /// The box's first index at position `p`.
    fn origin(&mut self, staging: &Staging, b: &StagedArray, p: usize) -> String {
        let (f, lo) = b.follows[p];
        let shift = match lo {
            0 => String::new(),
            l if l > 0 => format!(" + {l}"),
            l => format!(" - {}", -l),
        };
        match f {
            Follows::K => format!("(nu_idx)(nu_k0){shift}"),
            Follows::Elem(d) => {
                // Any local stepping with loop `d`: it is the box start plus that loop's
                // variable plus its own offset.
                let mut users: Vec<(&String, &(usize, i64))> = staging
                    .user_elems
                    .iter()
                    .filter(|(_, e)| e.0 == d)
                    .collect();
                users.sort();
                let (u, c) = users
                    .first()
                    .map_or((String::new(), 0), |(n, e)| ((*n).clone(), e.1));
                let v = self.var(&syn::Ident::new(&u, proc_macro2::Span::call_site()));
                let own = match c {
                    0 => String::new(),
                    c if c > 0 => format!(" - {c}"),
                    c => format!(" + {}", -c),
                };
                format!("(nu_idx)({v}) - (nu_idx)({}){own}{shift}", staging.elems[d])
            }
            Follows::Uniform => {
                let x = b.uniform[p]
                    .clone()
                    .map(|x| self.expr(&x))
                    .unwrap_or_default();
                format!("(nu_idx)({x})")
            }
        }
    }

    /// A read of a staged array in the staged loop: from local memory, checked at its site.
    pub(super) fn staged_read(
        &mut self,
        base: &syn::Ident,
        index: &[Expr],
        span: proc_macro2::Span,
    ) -> Option<String> {
        let (local, flat, expected) = self.staged_coords(base, index, 1)?;
        let f = self.staged_helper(base, index.len());
        Some(self.staged_call(&f, base, index, span, [local, flat], expected))
    }

    /// The call of a staged read helper `f`: the copy and the place in it, the array, the
    /// read's index, the index the copy holds there, and the site.
    pub(super) fn staged_call(
        &mut self,
        f: &str,
        base: &syn::Ident,
        index: &[Expr],
        span: proc_macro2::Span,
        copy: [String; 2],
        expected: Vec<String>,
    ) -> String {
        let idx: Vec<String> = index.iter().map(|x| self.expr(x)).collect();
        let (c, q) = self
            .env
            .site_args(SiteKind::Read, &base.to_string(), idx.len(), span);
        let mut args = copy.to_vec();
        args.extend(self.array_args(base, idx.len()));
        args.extend(idx);
        args.extend(expected);
        args.extend([c, q, "nu_err".into()]);
        format!("{f}({})", args.join(", "))
    }

    /// Where a read of a staged array falls in its copy (lane 0's, in a `vector(w)`, with
    /// `width` lanes along the box's last position): the local array, the flat place, and the
    /// array index the copy holds there, per position. `None` for a read of a skewed copy
    /// whose lanes may cross a padding (`stage_skew.rs`); the caller then reads the array.
    pub(super) fn staged_coords(
        &self,
        base: &syn::Ident,
        index: &[Expr],
        width: usize,
    ) -> Option<(String, String, Vec<String>)> {
        let staging = self.staging.clone()?;
        let b = staging.arrays.get(&base.to_string())?;
        let names = (staging.k.as_str(), &staging.user_elems, &staging.locals);
        let (mut flat, mut expected) = (String::from("0"), Vec::new());
        let (mut local, rank) = (b.local.clone(), index.len());
        for (p, x) in index.iter().enumerate() {
            let (f, off) = position(x, names.0, names.1, names.2)?;
            let shift = off - b.follows[p].1;
            let coord = |s: i64| match f {
                Follows::K => format!("{} + {s}", staging.ke),
                Follows::Elem(d) => format!("(nu_idx)({}) + {s}", staging.elems[d]),
                Follows::Uniform => "0".into(),
            };
            expected.push(format!("{}_o{p} + {}", b.local, coord(shift)));
            let last = (p + 1 == rank).then_some(matches!(f, Follows::Elem(_)));
            let (start, place) = read_part(b, last, &coord, shift, width)?;
            local.push_str(&start);
            flat = format!("({flat}) * {} + {place}", b.extents[p]);
        }
        if let Some(k) = &staging.buf {
            let size: usize = b.extents.iter().product();
            flat = format!("{k} * {size} + {flat}");
        }
        Some((local, flat, expected))
    }

    /// `nu_lds_<a>`: a checked read from a staged copy, made on first use.
    fn staged_helper(&self, base: &syn::Ident, rank: usize) -> String {
        let b = self.var(base);
        let name = format!("nu_lds_{b}");
        let fill = self.env.capture_fill(base).unwrap_or_default();
        let elem = Ph::elem(fill);
        let idx: Vec<String> = (0..rank).map(|k| format!("nu_i{k}")).collect();
        let params = staged_params(fill, &b, rank);
        // The copy holds the element the staging predicted; an index it did not predict (a
        // shadowed name, a narrow type's wrap) reads memory, so the value is always right.
        let predicted = predicted(rank);
        let mut off = "nu_i0".to_string();
        for k in 1..rank {
            off = format!("({off}) * {b}__d{k} + nu_i{k}");
        }
        let data = Ph::data(fill, &b);
        let inside: Vec<String> = idx
            .iter()
            .enumerate()
            .map(|(k, i)| format!("{i} < {b}__d{k}"))
            .collect();
        let fault = super::access::fault_call(&b, rank);
        let text = format!(
            "{elem} {name}({}) {{\n    if (nu_c && !({})) {{\n        {fault};\n        {elem} nu_zero = {{0}};\n        return nu_zero;\n    }}\n    if ({}) return nu_t[nu_l];\n    return {data}[{off}];\n}}\n",
            params.join(", "),
            inside.join(" && "),
            predicted.join(" && ")
        );
        self.env.shared.helper(&name, || text);
        name
    }
}

/// Index position `p` of a read of staged copy `b`: what moves the copy's start, and its place
/// along the position. `last` is `Some(whether it follows an element loop)` for the last
/// position. The last position's element variable moves the start, the same for every
/// iteration, so that what is left of the place is loop counters and constants, which ptxas
/// folds into the loads' offsets (with the variable in the index it computed each load's
/// address apart, two instructions a load); in a swizzled copy, the run's group moves it and
/// the place in the group is left (`stage_skew.rs`). `None` for lanes of a swizzled copy that
/// may cross a group: the caller reads the array.
fn read_part(
    b: &StagedArray,
    last: Option<bool>,
    coord: &dyn Fn(i64) -> String,
    shift: i64,
    width: usize,
) -> Option<(String, String)> {
    let row = *b.extents.last()?;
    match (last, b.swizzle) {
        (Some(_), Some(run)) => match stage_skew::in_run(&coord(0), shift, run, row) {
            Some((group, at)) => Some((format!(" + {group}"), at.to_string())),
            None if width > 1 => None,
            None => Some((String::new(), stage_skew::swizzled(&coord(shift), row))),
        },
        (Some(true), None) => Some((
            format!(" + {}", coord(0).trim_end_matches(" + 0")),
            shift.to_string(),
        )),
        _ => Some((String::new(), coord(shift))),
    }
}

/// The parameters of a staged read helper of array `b`: the copy and the place in it, the
/// array, the read's index, the index the copy holds there, and the site.
pub(super) fn staged_params(fill: usize, b: &str, rank: usize) -> Vec<String> {
    let mut params = vec![
        format!(
            "{}{}* nu_t",
            nuda_abi::dialect::Mk::space(nuda_abi::dialect::Space::Local),
            Ph::elem(fill)
        ),
        "nu_idx nu_l".into(),
        Ph::param(fill, b),
    ];
    params.extend((0..rank).map(|k| format!("nu_idx nu_i{k}")));
    params.extend((0..rank).map(|k| format!("nu_idx nu_e{k}")));
    params.extend([
        "int nu_c".into(),
        "uint nu_s".into(),
        super::marks::err_param(),
    ]);
    params
}

/// The condition that a read's index is the one the copy holds.
pub(super) fn predicted(rank: usize) -> Vec<String> {
    (0..rank).map(|k| format!("nu_i{k} == nu_e{k}")).collect()
}
