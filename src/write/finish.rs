//! Finishing a file (spec §9.5): once every node is written, the blocks
//! after the tree — category map (with the summaries computed from the
//! root's shadows, §11), line-ID maps (with the Identity Map), tree
//! directory — then the header at offset 0, last, and the atomic rename
//! over the target.

use std::os::unix::fs::FileExt;

use rustc_hash::FxHashMap;

use super::{shadow, Slog2Writer, WriteSummary};
use crate::error::{Error, Result};
use crate::format::{self, BlockPtr, DirEntry};
use crate::model::*;

impl Slog2Writer {
    /// Close every open node, write categories, maps, directory and header,
    /// and atomically rename the file over the target.
    pub fn finish(self) -> Result<WriteSummary> {
        self.finish_with(None::<fn(&[DirEntry]) -> Result<()>>)
    }

    /// [`finish`](Self::finish), with a last check of the tree directory
    /// (root first, then depth descending and xpos ascending) before the
    /// file is renamed over the target: an error from `check` leaves no
    /// file and any existing target untouched (checking after the rename
    /// had already replaced it).
    pub fn finish_checked(
        self,
        check: impl FnOnce(&[DirEntry]) -> Result<()>,
    ) -> Result<WriteSummary> {
        self.finish_with(Some(check))
    }

    /// [`finish`](Self::finish), checked when `check` is given (the
    /// directory is only read back into memory then).
    fn finish_with(
        mut self,
        check: Option<impl FnOnce(&[DirEntry]) -> Result<()>>,
    ) -> Result<WriteSummary> {
        if self.last_end.is_none() {
            return Err(Error::NoDrawables);
        }
        if self.finished {
            return Err(Error::InvalidArgument("writer already finished".into()));
        }
        self.finished = true;
        let top = self.trunk.len() - 1;
        for d in 0..=top {
            self.close_node(d, d == top)?;
        }
        // Every node is written once the node thread is done.
        let nodes = self.encoder.finish()?;
        let (root_entry, root_buf, lines) = nodes.root.ok_or(Error::NoDrawables)?;
        self.offset = nodes.blocks.offset;
        self.header.max_buffer_bytesize = nodes.blocks.max_buffer_bytesize;
        self.summary.plain_node_bytes = nodes.blocks.plain_bytes;
        self.tail_offset = self.offset;
        let mut sums = FxHashMap::default();
        shadow::summarize(&root_buf, &mut sums);

        // Categories: previews used, then the used ones in definition order.
        let mut cats: Vec<Category> = Vec::new();
        for t in [Topology::Event, Topology::State, Topology::Arrow] {
            if self.topologies_used[t as usize] {
                cats.push(Category::preview(t));
            }
        }
        for idx in &self.category_order {
            if let Some((c, true)) = self.categories.get(idx) {
                let mut c = c.clone();
                if let Some(&(count, incl, excl)) = sums.get(idx) {
                    c.count = count;
                    c.incl_ratio = incl;
                    c.excl_ratio = excl;
                }
                cats.push(c);
            }
        }
        let mut buf = Vec::new();
        format::encode_categories(&mut buf, cats.iter());
        self.header.categories = self.write_block(&buf)?;

        let mut maps: Vec<YCoordMap> = std::mem::take(&mut self.ycoordmaps);
        for m in maps.iter_mut() {
            let mut rows: std::collections::BTreeMap<i32, Vec<i32>> = Default::default();
            for (l, v) in m.rows.drain(..) {
                rows.insert(l, v);
            }
            m.rows = rows.into_iter().collect();
        }
        maps.push(YCoordMap::identity(lines));
        buf.clear();
        format::encode_ycoordmaps(&mut buf, maps.iter());
        self.header.lineidmaps = self.write_block(&buf)?;

        // The directory, the last block, is written a slice of entries at
        // a time from where the block stage kept it (`directory.rs`): at
        // 100M drawables it is 3.7 MB, which a buffer of its own and a copy
        // in the tail would add to the writer's peak memory.
        let dir = nodes.blocks.dir;
        self.header.treedir = self.place_block(4 + dir.len() * format::DIR_ENTRY_SIZE)?;

        self.header.treeroot = root_entry.ptr;
        self.header.max_treedepth = root_entry.id.depth;
        let path = self.target.clone();
        let file = &self.file;
        file.write_all_at(&self.tail, self.tail_offset)
            .map_err(|e| Error::io(&path, e))?;
        let mut at = self.header.treedir.offset as u64;
        let count = (dir.len() as i32).to_be_bytes();
        file.write_all_at(&count, at)
            .map_err(|e| Error::io(&path, e))?;
        at += 4;
        dir.write_sorted(|entries| {
            file.write_all_at(entries, at)
                .map_err(|e| Error::io(&path, e))?;
            at += entries.len() as u64;
            Ok(())
        })?;
        buf.clear();
        self.header.encode(&mut buf);
        file.write_all_at(&buf, 0)
            .map_err(|e| Error::io(&path, e))?;
        file.set_len(self.offset).map_err(|e| Error::io(&path, e))?;
        if let Some(check) = check {
            check(&dir.entries()?)?;
        }
        if self.opts.sync {
            file.sync_all().map_err(|e| Error::io(&path, e))?;
        }
        let tmp = self
            .tmp
            .take()
            .ok_or_else(|| Error::InvalidArgument("writer already finished".into()))?;
        super::output::publish(tmp, &self.output, &path)?;
        self.registered = None;

        let mut s = std::mem::take(&mut self.summary);
        s.categories = cats.len();
        s.depth = root_entry.id.depth;
        s.nodes = dir.len();
        s.bytes = self.offset;
        s.max_buffer_bytesize = self.header.max_buffer_bytesize;
        s.time_box = Some(root_entry.time_box);
        s.stage_cpu = vec![("tree", crate::cputime::thread_cpu_seconds())];
        match nodes.blocks_cpu {
            Some(b) => s
                .stage_cpu
                .extend([("shadows", nodes.shadows_cpu), ("blocks", b)]),
            None => s.stage_cpu.push(("shadows+blocks", nodes.shadows_cpu)),
        }
        Ok(s)
    }

    /// Append a block after the tree (written by `finish`).
    fn write_block(&mut self, bytes: &[u8]) -> Result<BlockPtr> {
        let p = self.place_block(bytes.len())?;
        self.tail.extend_from_slice(bytes);
        Ok(p)
    }

    /// The place of the next block after the tree, of `len` bytes.
    fn place_block(&mut self, len: usize) -> Result<BlockPtr> {
        // A block pointer's size is an i32: a larger block (2 GiB of
        // categories, maps or directory) would wrap silently.
        let size = i32::try_from(len).map_err(|_| {
            Error::InvalidArgument(format!(
                "a metadata block of {len} bytes exceeds the format's 2 GiB block limit"
            ))
        })?;
        let p = BlockPtr::new(self.offset, len);
        self.offset += len as u64;
        self.header.max_buffer_bytesize = self.header.max_buffer_bytesize.max(size);
        Ok(p)
    }
}
