//! Hierarchies over the lines of a cube, for spatiotemporal aggregation:
//! rooted trees whose leaves are the lines (machine → process → thread).
//!
//! * **From a y-map** ([`Hierarchy::from_ymap`]): each line's row gives a
//!   path of values, one per column (MPE's "Process-Thread View": rank,
//!   thread; a NodeView: node, core); lines sharing a prefix share a node.
//!   A node with a single child is the child (a thread alone in its process
//!   is the process), so paths never make chains. Lines the map does not
//!   list hang from the root. Any y-map works: the OTF2 reader's
//!   system-tree columns, a NodeView, or a map written by a tool.
//! * **Balanced groups** ([`Hierarchy::fanout`]): the lines in cube order
//!   grouped `k` by `k`, the groups `k` by `k`, up to one root. The
//!   default is `fanout:8` ([`Hierarchy::parse`]).
//!
//! Nodes are numbered in depth-first pre-order from the root (0), children
//! in the order of their first line; each node lists its lines (positions
//! in cube order).

use crate::error::{Error, Result};
use crate::model::YCoordMap;

/// One node of a [`Hierarchy`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HierarchyNode {
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Positions (in cube order) of the lines under this node, ascending.
    pub lines: Vec<usize>,
    /// What the node stands for: `label=value` of its y-map column, `line
    /// N`, or `group` for balanced groups.
    pub label: String,
}

/// A rooted tree whose leaves are the lines of a cube (module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hierarchy {
    pub nodes: Vec<HierarchyNode>,
}

/// A node while building: children and own lines.
#[derive(Default)]
struct Draft {
    label: String,
    key: Option<i32>,
    kids: Vec<Draft>,
    line: Option<usize>,
}

impl Hierarchy {
    /// `lines` (cube order) grouped `k` by `k` up to one root (`k >= 2`).
    pub fn fanout(lines: &[i32], k: usize) -> Result<Hierarchy> {
        if k < 2 {
            return Err(Error::InvalidArgument(format!(
                "fanout:{k}: groups need at least 2 members"
            )));
        }
        let mut level: Vec<Draft> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| Draft {
                label: format!("line {l}"),
                line: Some(i),
                ..Default::default()
            })
            .collect();
        while level.len() > 1 {
            let mut next = Vec::new();
            let mut it = level.into_iter().peekable();
            while it.peek().is_some() {
                let kids: Vec<Draft> = it.by_ref().take(k).collect();
                next.push(Draft {
                    label: "group".into(),
                    kids,
                    ..Default::default()
                });
            }
            level = next;
        }
        Self::finish(level.pop().unwrap_or_default(), lines.len())
    }

    /// The hierarchy of a y-map's columns over `lines` (module docs).
    pub fn from_ymap(map: &YCoordMap, lines: &[i32]) -> Result<Hierarchy> {
        let rows: std::collections::HashMap<i32, &Vec<i32>> =
            map.rows.iter().map(|(l, v)| (*l, v)).collect();
        let mut root = Draft {
            label: map.title.clone(),
            ..Default::default()
        };
        for (pos, line) in lines.iter().enumerate() {
            let leaf = Draft {
                label: format!("line {line}"),
                line: Some(pos),
                ..Default::default()
            };
            let mut at = &mut root;
            if let Some(vals) = rows.get(line) {
                for (c, &v) in vals.iter().enumerate() {
                    let i = match at
                        .kids
                        .iter()
                        .position(|d| d.key == Some(v) && d.line.is_none())
                    {
                        Some(i) => i,
                        None => {
                            let label = map.column_labels.get(c).map_or("column", |s| s.as_str());
                            at.kids.push(Draft {
                                label: format!("{label}={v}"),
                                key: Some(v),
                                ..Default::default()
                            });
                            at.kids.len() - 1
                        }
                    };
                    at = &mut at.kids[i];
                }
            }
            at.kids.push(leaf);
        }
        Self::finish(collapse(root, true), lines.len())
    }

    /// `fanout:K`, the title of one of `maps`, or `None` for `fanout:8`.
    pub fn parse(spec: Option<&str>, maps: &[YCoordMap], lines: &[i32]) -> Result<Hierarchy> {
        let spec = spec.unwrap_or("fanout:8");
        if let Some(k) = spec.strip_prefix("fanout:") {
            let k: usize = k.trim().parse().map_err(|_| {
                Error::InvalidArgument(format!(
                    "hierarchy {spec:?}: fanout:K needs a number K >= 2"
                ))
            })?;
            return Self::fanout(lines, k);
        }
        let map = maps.iter().find(|m| m.title == spec).ok_or_else(|| {
            let titles: Vec<&str> = maps.iter().map(|m| m.title.as_str()).collect();
            Error::InvalidArgument(format!(
                "hierarchy {spec:?}: no y-map of that title (the file has {titles:?}; or fanout:K)"
            ))
        })?;
        Self::from_ymap(map, lines)
    }

    /// Number the drafts in pre-order and check every line is one leaf.
    fn finish(root: Draft, n_lines: usize) -> Result<Hierarchy> {
        let mut nodes = Vec::new();
        number(root, None, &mut nodes);
        let mut seen = vec![false; n_lines];
        for n in &nodes {
            if n.children.is_empty() {
                for &l in &n.lines {
                    seen[l] = true;
                }
            }
        }
        if n_lines == 0 || seen.iter().any(|s| !s) {
            return Err(Error::InvalidArgument(
                "a hierarchy needs at least one line, each a leaf".into(),
            ));
        }
        Ok(Hierarchy { nodes })
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The picture order of the lines: the leaves in depth-first order, so
    /// that every node's lines are one run of rows (the cube's order need
    /// not be: a y-map may interleave its groups). Returns the line
    /// position (cube order) of each row, and each node's first row (its
    /// rows are `first..first + lines.len()`).
    pub fn rows(&self) -> (Vec<usize>, Vec<usize>) {
        let mut order = Vec::new();
        let mut first = vec![0; self.nodes.len()];
        let mut stack = vec![0usize];
        while let Some(n) = stack.pop() {
            let Some(node) = self.nodes.get(n) else {
                continue;
            };
            first[n] = order.len();
            if node.children.is_empty() {
                order.extend_from_slice(&node.lines);
            }
            stack.extend(node.children.iter().rev());
        }
        (order, first)
    }

    /// Node positions by depth, deepest level first (children before
    /// parents).
    pub fn levels(&self) -> Vec<Vec<usize>> {
        let mut depth = vec![0usize; self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            if let Some(p) = n.parent {
                depth[i] = depth[p] + 1;
            }
        }
        let max = depth.iter().copied().max().unwrap_or(0);
        let mut out = vec![Vec::new(); max + 1];
        for (i, d) in depth.iter().enumerate() {
            out[max - d].push(i);
        }
        out
    }
}

/// Replace every node that has exactly one child by that child (the root
/// too, unless `keep_root`... which only keeps it when it has lines of its
/// own to hold).
fn collapse(mut d: Draft, keep_root: bool) -> Draft {
    d.kids = d.kids.into_iter().map(|k| collapse(k, false)).collect();
    if d.kids.len() == 1 && (!keep_root || d.kids[0].line.is_none()) {
        let mut k = d.kids.pop().unwrap_or_default();
        if keep_root && k.line.is_none() {
            k.label = format!("{} / {}", d.label, k.label);
        }
        return k;
    }
    d
}

fn number(d: Draft, parent: Option<usize>, out: &mut Vec<HierarchyNode>) -> usize {
    let me = out.len();
    out.push(HierarchyNode {
        parent,
        children: Vec::new(),
        lines: d.line.into_iter().collect(),
        label: d.label,
    });
    let mut kids = d.kids;
    kids.sort_by_key(first_line);
    for k in kids {
        let c = number(k, Some(me), out);
        out[me].children.push(c);
        let mut l = out[c].lines.clone();
        out[me].lines.append(&mut l);
    }
    out[me].lines.sort_unstable();
    me
}

fn first_line(d: &Draft) -> usize {
    d.line
        .unwrap_or_else(|| d.kids.iter().map(first_line).min().unwrap_or(usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fanout_is_balanced_and_covers_every_line() {
        let lines: Vec<i32> = (0..700).collect();
        let h = Hierarchy::fanout(&lines, 8).unwrap();
        assert_eq!(h.nodes[0].parent, None);
        assert_eq!(h.nodes[0].lines.len(), 700);
        // 700 leaves, 88 groups, 11, 2, root.
        assert_eq!(h.len(), 700 + 88 + 11 + 2 + 1);
        for (i, n) in h.nodes.iter().enumerate() {
            assert!(n.children.len() <= 8);
            for &c in &n.children {
                assert_eq!(h.nodes[c].parent, Some(i));
                assert!(c > i, "pre-order");
            }
        }
        let one = Hierarchy::fanout(&[5], 8).unwrap();
        assert_eq!(one.len(), 1);
        assert!(Hierarchy::fanout(&lines, 1).is_err());
        assert!(Hierarchy::fanout(&[], 8).is_err());
    }

    #[test]
    fn ymap_columns_make_levels_and_single_children_collapse() {
        // node -> core -> line, one line per core: cores collapse.
        let map = YCoordMap {
            title: "NodeView".into(),
            column_labels: vec!["node".into(), "core".into()],
            rows: (0..12).map(|l| (l, vec![l / 4, l % 4])).collect(),
            methods: vec![],
        };
        let lines: Vec<i32> = (0..12).chain([99]).collect();
        let h = Hierarchy::from_ymap(&map, &lines).unwrap();
        // root, 3 nodes, 12 lines, and line 99 (not in the map) under the root.
        assert_eq!(h.len(), 1 + 3 + 13);
        let root = &h.nodes[0];
        assert_eq!(root.children.len(), 4);
        assert_eq!(h.nodes[root.children[0]].label, "node=0");
        assert_eq!(h.nodes[root.children[0]].lines, vec![0, 1, 2, 3]);
        assert_eq!(h.levels().last().unwrap(), &vec![0]);
        // Rows: node=0's lines (0..4) first, each node one run.
        let (order, first) = h.rows();
        assert_eq!(order.len(), 13);
        for (id, n) in h.nodes.iter().enumerate() {
            let mut run: Vec<usize> = order[first[id]..first[id] + n.lines.len()].to_vec();
            run.sort_unstable();
            assert_eq!(run, n.lines, "node {id}");
        }
        // Interleaved groups (line l in group l % 2) still make runs.
        let odd = YCoordMap {
            title: "Odd".into(),
            column_labels: vec!["g".into()],
            rows: (0..6).map(|l| (l, vec![l % 2])).collect(),
            methods: vec![],
        };
        let hi = Hierarchy::from_ymap(&odd, &[0, 1, 2, 3, 4, 5]).unwrap();
        let (order, first) = hi.rows();
        assert_eq!(order, vec![0, 2, 4, 1, 3, 5]);
        assert_eq!(first[hi.nodes[0].children[1]], 3);
        let flat = Hierarchy::from_ymap(&YCoordMap::identity(0..5), &[0, 1, 2, 3, 4]).unwrap();
        assert_eq!(flat.len(), 6);
        assert_eq!(flat.nodes[0].children.len(), 5);
        assert!(Hierarchy::parse(Some("nope"), std::slice::from_ref(&map), &lines).is_err());
        assert_eq!(
            Hierarchy::parse(Some("NodeView"), &[map], &lines).unwrap(),
            h
        );
        assert!(Hierarchy::parse(Some("fanout:x"), &[], &lines).is_err());
    }
}
