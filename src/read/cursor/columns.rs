//! The cursor's operations on row columns: dropping the rows that left
//! (a prefix on forward scrolls), sliding and compacting the live rows,
//! merging sorted runs of entering rows with the kept ones, and copying
//! rows with their info bytes. Rows here are always whole records (a
//! composite's row with its members' rows).

use smallvec::SmallVec;

use crate::model::{DrawingKey, TimeBox};

use super::super::rows::{Rows, RowsRef, ROW_COMPOSITE};
use super::super::QueryStats;
use super::{RunRows, SLIDE_INFO};

/// Forward move: drop the live rows (from `head`) whose drawable ends
/// before `w`. They lie among the rows that start before `w` (a prefix in
/// drawing order); the ones of those that stay are moved up, in order, to
/// the rows after the prefix, and the head moves past the dropped ones.
/// `parent` and `info_offset` of the live rows are rebased on the new head.
pub(super) fn drop_prefix(
    buf: &mut Rows,
    head: &mut usize,
    info_head: &mut usize,
    stay: &mut Vec<(u32, u32, u32)>,
    w: TimeBox,
) {
    let (h, ih) = (*head, *info_head);
    let n = buf.len();
    stay.clear();
    let mut i = h;
    // Without composites (the common case) the starts are sorted and every
    // parent is -1.
    let composites = buf.kind[h..n].contains(&ROW_COMPOSITE);
    if !composites {
        let p = h + buf.start[h..n].partition_point(|&s| s < w.start);
        let (end, off) = (&buf.end[h..p], &buf.info_offset[h..=p]);
        for (k, &e) in end.iter().enumerate() {
            if e >= w.start {
                stay.push(((h + k) as u32, off[k], off[k + 1]));
            }
        }
        i = p;
    } else {
        let (start, end, kind) = (&buf.start[..n], &buf.end[..n], &buf.kind[..n]);
        let off = &buf.info_offset[..=n];
        while i < n && start[i] < w.start {
            if kind[i] == ROW_COMPOSITE {
                let j = (i + 1 + buf.num_real[i].max(0) as usize).min(n);
                if end[i] >= w.start {
                    stay.extend((i..j).map(|r| (r as u32, off[r], off[r + 1])));
                }
                i = j;
            } else {
                // Without a branch on whether it stays (unpredictable): the
                // entry is written, and kept if the row stays.
                let k = stay.len();
                stay.push((i as u32, off[i], off[i + 1]));
                stay.truncate(k + (end[i] >= w.start) as usize);
                i += 1;
            }
        }
    }
    let p = i;
    let s = stay.len();
    if p - h == s {
        return; // nothing leaves
    }
    let new_head = p - s;
    let info_p = ih + buf.info_offset[p] as usize;
    // Staying rows, last first, to the end of the prefix (each moves right
    // or stays: no row is overwritten before it is read). Columns cut to
    // the prefix, so one check of the two rows covers every column.
    let mut to_info = info_p;
    let (kind, category) = (&mut buf.kind[..p], &mut buf.category[..p]);
    let (start, end) = (&mut buf.start[..p], &mut buf.end[..p]);
    let (time0, time1) = (&mut buf.time0[..p], &mut buf.time1[..p]);
    let (line0, line1) = (&mut buf.line0[..p], &mut buf.line1[..p]);
    let (num_real, parent) = (&mut buf.num_real[..p], &mut buf.parent[..p]);
    let info_offset = &mut buf.info_offset[..p];
    for (k, &(from, i0, i1)) in stay.iter().enumerate().rev() {
        let (from, to) = (from as usize, new_head + k);
        assert!(from < p && to < p, "staying rows lie in the prefix");
        let (i0, i1) = (ih + i0 as usize, ih + i1 as usize);
        if i1 > i0 {
            buf.info.copy_within(i0..i1, to_info - (i1 - i0));
        }
        to_info -= i1 - i0;
        kind[to] = kind[from];
        category[to] = category[from];
        start[to] = start[from];
        end[to] = end[from];
        time0[to] = time0[from];
        time1[to] = time1[from];
        line0[to] = line0[from];
        line1[to] = line1[from];
        num_real[to] = num_real[from];
        // A member's composite moves by as much as the member.
        let q = parent[from];
        parent[to] = if q < 0 {
            q
        } else {
            q - (from - h) as i32 + (k as i32)
        };
        // Start offset of row `to`, relative to the new info head (set below).
        info_offset[to] = to_info as u32;
    }
    let new_info_head = to_info;
    for o in &mut buf.info_offset[new_head..p] {
        *o -= new_info_head as u32;
    }
    let (dr, di) = ((new_head - h) as i32, (new_info_head - ih) as u32);
    if composites {
        for q in &mut buf.parent[p..] {
            // (a select, so the loop vectorises)
            *q = if *q >= 0 { *q - dr } else { *q };
        }
    }
    for o in &mut buf.info_offset[p..] {
        *o -= di;
    }
    *head = new_head;
    *info_head = new_info_head;
}

/// Make room for `incoming` (rows, info bytes): move the live rows to the
/// front once the dead ones before them are many (module docs), or when
/// the columns are full (so that growing them never copies dead rows), and
/// grow them for ~2× the live rows beyond the compaction threshold (so they
/// rarely fill up). Live `parent`/`info_offset` values count from the head
/// already, so the rows are copied as they are. Whether it compacted.
pub(super) fn slide(
    buf: &mut Rows,
    head: &mut usize,
    info_head: &mut usize,
    slide_rows: usize,
    (rows_in, info_in): (usize, usize),
) -> bool {
    let (h, ih) = (*head, *info_head);
    let (live, live_info) = (buf.len() - h, buf.info.len() - ih);
    let full =
        buf.len() + rows_in > buf.kind.capacity() || buf.info.len() + info_in > buf.info.capacity();
    let compacted = full || h > slide_rows.max(live) || ih > SLIDE_INFO.max(live_info);
    if compacted {
        compact(buf, head, info_head);
    }
    // Room for the live and entering rows and ~`slide_rows` dead ones
    // beyond (grown when full, not only when the entering rows would not
    // fit after the compaction: columns that just fit would be compacted,
    // all live rows copied, on every move).
    let (len, want) = (buf.len(), slide_rows + 2 * (live + rows_in));
    if len + rows_in > buf.kind.capacity() || (full && want > buf.kind.capacity()) {
        buf.reserve(want.max(len + rows_in) - len);
    }
    let (ilen, iwant) = (
        buf.info.len(),
        SLIDE_INFO.min(slide_rows * 64) + 2 * (live_info + info_in),
    );
    if ilen + info_in > buf.info.capacity() || (full && iwant > buf.info.capacity()) {
        buf.info.reserve(iwant.max(ilen + info_in) - ilen);
    }
    compacted
}

/// Move the live rows to the front of the columns.
pub(super) fn compact(buf: &mut Rows, head: &mut usize, info_head: &mut usize) {
    let (h, ih) = (*head, *info_head);
    if h == 0 && ih == 0 {
        return;
    }
    pub(super) fn front<T: Copy>(v: &mut Vec<T>, from: usize) {
        v.copy_within(from.., 0);
        v.truncate(v.len() - from);
    }
    front(&mut buf.kind, h);
    front(&mut buf.category, h);
    front(&mut buf.start, h);
    front(&mut buf.end, h);
    front(&mut buf.time0, h);
    front(&mut buf.time1, h);
    front(&mut buf.line0, h);
    front(&mut buf.line1, h);
    front(&mut buf.parent, h);
    front(&mut buf.num_real, h);
    front(&mut buf.info_offset, h);
    front(&mut buf.info, ih);
    *head = 0;
    *info_head = 0;
}

/// Append the runs' records to `dst` (live from `head`/`info_head`) in
/// drawing order: a k-way merge that copies each stretch of one run that
/// draws before every other run's next record in one go.
pub(super) fn merge_runs(runs: &[RunRows<'_>], dst: &mut Rows, head: usize, info_head: usize) {
    // Next record of each run.
    let mut at: SmallVec<[usize; 16]> = runs.iter().map(|_| 0).collect();
    loop {
        let mut best: Option<(usize, DrawingKey)> = None;
        let mut second: Option<DrawingKey> = None;
        for (r, (rows, bounds)) in runs.iter().enumerate() {
            if at[r] + 1 >= bounds.len() {
                continue;
            }
            let k = row_key(rows, bounds[at[r]] as usize);
            match best {
                Some((_, b)) if k >= b => second = Some(second.map_or(k, |s| s.min(k))),
                _ => {
                    if let Some((_, b)) = best {
                        second = Some(second.map_or(b, |s| s.min(b)));
                    }
                    best = Some((r, k));
                }
            }
        }
        let Some((m, _)) = best else {
            return;
        };
        let (rows, bounds) = &runs[m];
        let rest = &bounds[at[m]..bounds.len() - 1];
        // The run's records that draw no later than the other runs' next
        // (at least its first, the smallest of all).
        let k = second.map_or(rest.len(), |s| {
            rest.partition_point(|&a| row_key(rows, a as usize) <= s)
        });
        let (a, b) = (bounds[at[m]], bounds[at[m] + k]);
        at[m] += k;
        copy_rows(rows, a as usize, b as usize, dst, head, info_head);
    }
}

/// A move that is not a forward scroll: the kept rows of `src` merged with
/// the entering rows `ent` (sorted) into `dst`, in drawing order.
pub(super) fn merge_kept(src: RowsRef<'_>, ent: RowsRef<'_>, w: TimeBox, dst: &mut Rows) {
    let n = src.len();
    let ne = ent.len();
    let keep = |i: usize| src.start[i] <= w.end && w.start <= src.end[i];
    let mut e = 0;
    let mut i = 0;
    while i < n {
        if !keep(i) {
            i = next_record(&src, i);
            continue;
        }
        // Entering records that draw before row i go first.
        let bound = row_key(&src, i);
        let e0 = e;
        while e < ne && row_key(&ent, e) < bound {
            e = next_record(&ent, e);
        }
        copy_rows(&ent, e0, e, dst, 0, 0);
        // A run of kept records up to the next entering one.
        let eb = (e < ne).then(|| row_key(&ent, e));
        let mut j = i;
        while j < n && keep(j) && eb.is_none_or(|b| row_key(&src, j) <= b) {
            j = next_record(&src, j);
        }
        copy_rows(&src, i, j, dst, 0, 0);
        i = j;
    }
    copy_rows(&ent, e, ne, dst, 0, 0);
}

/// The row after record `i` (a composite's members belong to it).
pub(super) fn next_record(r: &RowsRef<'_>, i: usize) -> usize {
    if r.kind[i] == ROW_COMPOSITE {
        (i + 1 + r.num_real[i].max(0) as usize).min(r.len())
    } else {
        i + 1
    }
}

/// The drawing key of row `i` (a composite's row carries its record's box and
/// first/last lines, a primitive's its own).
#[inline]
pub(super) fn row_key(r: &RowsRef<'_>, i: usize) -> DrawingKey {
    DrawingKey::new(
        TimeBox::new(r.start[i], r.end[i]),
        r.category[i],
        r.line0[i],
        r.line1[i],
    )
}

/// Empty every column, keeping capacity.
pub(super) fn clear(r: &mut Rows) {
    r.kind.clear();
    r.category.clear();
    r.start.clear();
    r.end.clear();
    r.time0.clear();
    r.time1.clear();
    r.line0.clear();
    r.line1.clear();
    r.parent.clear();
    r.num_real.clear();
    r.info_offset.clear();
    r.info_offset.push(0);
    r.info.clear();
    r.weights = Default::default();
    r.stats = QueryStats::default();
}

/// Append rows `a..b` of `src` (whole records: a composite with its
/// members) to `dst`, whose live rows start at `head` and info bytes at
/// `info_head`; `parent` and info offsets are rebased on those.
pub(super) fn copy_rows(
    src: &RowsRef<'_>,
    a: usize,
    b: usize,
    dst: &mut Rows,
    head: usize,
    info_head: usize,
) {
    if a >= b {
        return;
    }
    if b - a <= 8 && src.parent[a..b].iter().all(|&p| p < 0) {
        // A few primitive rows (often one: a long state of an upper node
        // between runs of a leaf): pushes, not a dozen short copies.
        let base = (dst.info.len() - info_head) as u32;
        let i0 = src.info_offset[a];
        dst.info
            .extend_from_slice(&src.info[i0 as usize..src.info_offset[b] as usize]);
        for r in a..b {
            dst.kind.push(src.kind[r]);
            dst.category.push(src.category[r]);
            dst.start.push(src.start[r]);
            dst.end.push(src.end[r]);
            dst.time0.push(src.time0[r]);
            dst.time1.push(src.time1[r]);
            dst.line0.push(src.line0[r]);
            dst.line1.push(src.line1[r]);
            dst.num_real.push(src.num_real[r]);
            dst.parent.push(src.parent[r]);
            dst.info_offset.push(base + (src.info_offset[r + 1] - i0));
        }
        return;
    }
    let shift = (dst.len() - head) as i64 - a as i64;
    dst.kind.extend_from_slice(&src.kind[a..b]);
    dst.category.extend_from_slice(&src.category[a..b]);
    dst.start.extend_from_slice(&src.start[a..b]);
    dst.end.extend_from_slice(&src.end[a..b]);
    dst.time0.extend_from_slice(&src.time0[a..b]);
    dst.time1.extend_from_slice(&src.time1[a..b]);
    dst.line0.extend_from_slice(&src.line0[a..b]);
    dst.line1.extend_from_slice(&src.line1[a..b]);
    dst.num_real.extend_from_slice(&src.num_real[a..b]);
    dst.parent.extend(src.parent[a..b].iter().map(|&p| {
        if p < 0 {
            p
        } else {
            (p as i64 + shift) as i32
        }
    }));
    let (i0, i1) = (src.info_offset[a], src.info_offset[b]);
    let base = (dst.info.len() - info_head) as u32;
    dst.info
        .extend_from_slice(&src.info[i0 as usize..i1 as usize]);
    dst.info_offset
        .extend(src.info_offset[a + 1..=b].iter().map(|&o| o - i0 + base));
}
