//! Whole-file views that C, Java and Python clients ask for by position: the
//! tree directory as a linked array (root first, parent and child indices)
//! and every drawable in drawing order. They live here, not in a binding,
//! so every skin hands out the same thing.

use rustc_hash::FxHashMap;

use crate::error::Result;
use crate::format::DirEntry;
use crate::model::{Drawable, NodeId, TimeBox};

use super::Slog2File;

/// One node of [`Slog2File::tree_directory`]: its ID, box and block, and the
/// indices (into the same array) of its parent and first and last child.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeDirNode {
    pub id: NodeId,
    pub time_box: TimeBox,
    pub block_offset: i64,
    pub block_size: i32,
    /// -1 for the root (and for orphans of a damaged directory).
    pub parent: i32,
    /// -1 for leaves.
    pub first_child: i32,
    pub last_child: i32,
}

impl Slog2File {
    /// The directory root first, then depth descending and xpos ascending,
    /// with parent and child links as array indices.
    pub fn tree_directory(&self) -> Vec<TreeDirNode> {
        let mut order: Vec<&DirEntry> = self.directory().iter().collect();
        let root = *self.root();
        order.sort_by(|a, b| {
            (b.id == root.id)
                .cmp(&(a.id == root.id))
                .then(b.id.depth.cmp(&a.id.depth))
                .then(a.id.xpos.cmp(&b.id.xpos))
        });
        let mut idx: FxHashMap<NodeId, i32> = FxHashMap::default();
        for (i, e) in order.iter().enumerate() {
            idx.entry(e.id).or_insert(i as i32);
        }
        let n = i64::from(self.header().num_children_per_node.max(1));
        let at = |depth: i64, xpos: i64| -> Option<i32> {
            let id = NodeId::new(i16::try_from(depth).ok()?, i32::try_from(xpos).ok()?);
            idx.get(&id).copied()
        };
        order
            .iter()
            .map(|e| {
                let (d, x) = (i64::from(e.id.depth), i64::from(e.id.xpos));
                // Children by binary search (`Slog2File::children`): the
                // header's children-per-node is not trusted as a loop bound.
                let kids: Vec<i32> = self
                    .children(e.id)
                    .filter_map(|c| idx.get(&c.id).copied())
                    .collect();
                TreeDirNode {
                    id: e.id,
                    time_box: e.time_box,
                    block_offset: e.ptr.offset,
                    block_size: e.ptr.size,
                    parent: if e.id == root.id {
                        -1
                    } else {
                        at(d + 1, x / n).unwrap_or(-1)
                    },
                    first_child: kids.first().copied().unwrap_or(-1),
                    last_child: kids.last().copied().unwrap_or(-1),
                }
            })
            .collect()
    }

    /// Every drawable of the file in drawing order (the order of the draft's
    /// sequential input API). Holds the whole file's drawables: for large
    /// files use window queries.
    pub fn drawables_in_order(&self) -> Result<Vec<Drawable>> {
        let mut v: Vec<Drawable> = self.drawables().collect::<Result<_>>()?;
        v.sort_by(Drawable::drawing_cmp);
        Ok(v)
    }

    /// One line describing the file: version and tree shape.
    pub fn description(&self) -> String {
        let h = self.header();
        format!(
            "{} (children per node {}, leaf size {} bytes, depth {})",
            h.version, h.num_children_per_node, h.treeleaf_bytesize, h.max_treedepth
        )
    }
}
