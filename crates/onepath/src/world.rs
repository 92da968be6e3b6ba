//! [`NavWorld`]: agent classes, one [`NavMesh`] per [`NavSettings`] over the same geometry,
//! saved as ONNW.

use onepath_format::{FormatError, NavSettings};

use crate::envelope::{read_onnw, write_onnw};
use crate::error::{Error, Result};
use crate::geometry::Geometry;
use crate::navmesh::{BuildOptions, NavMesh, Store};

/// Agent classes: one [`NavMesh`] per [`NavSettings`], built from the same geometry in the
/// order given. Class `i` is byte-identical to `NavMesh::build(&classes[i], geometry)`; the
/// classes share nothing.
#[derive(Debug, Clone)]
pub struct NavWorld {
    classes: Vec<NavMesh>,
}

impl NavWorld {
    /// Builds one mesh per settings, in order (the geometry is read once: an OBJ file is
    /// loaded once for all classes). No settings is [`Error::NoSuchClass`]; otherwise the
    /// errors of [`NavMesh::build`], for the first class that fails.
    pub fn build<'g>(classes: &[NavSettings], geometry: impl Into<Geometry<'g>>) -> Result<Self> {
        Self::build_with(classes, geometry, BuildOptions::default())
    }

    /// [`NavWorld::build`] with [`BuildOptions`] (the progress callback is called for every
    /// class's tiles, class after class).
    pub fn build_with<'g>(
        classes: &[NavSettings],
        geometry: impl Into<Geometry<'g>>,
        options: BuildOptions<'_>,
    ) -> Result<Self> {
        if classes.is_empty() {
            return Err(Error::NoSuchClass { class: 0, count: 0 });
        }
        let prepared = geometry.into().prepare()?;
        let classes = classes
            .iter()
            .map(|s| NavMesh::build_prepared(s, &prepared, options))
            .collect::<Result<Vec<_>>>()?;
        Ok(NavWorld { classes })
    }

    /// A world of meshes built elsewhere, in this order (with or without tile caches). No
    /// mesh is [`Error::NoSuchClass`].
    pub fn from_classes(classes: Vec<NavMesh>) -> Result<Self> {
        if classes.is_empty() {
            return Err(Error::NoSuchClass { class: 0, count: 0 });
        }
        Ok(NavWorld { classes })
    }

    /// The classes, in order.
    pub fn classes(&self) -> &[NavMesh] {
        &self.classes
    }

    /// Class `i`; out of range is [`Error::NoSuchClass`] naming it and the class count.
    pub fn class(&self, i: usize) -> Result<&NavMesh> {
        let count = self.classes.len();
        self.classes
            .get(i)
            .ok_or(Error::NoSuchClass { class: i, count })
    }

    /// Class `i`, mutable (obstacles, streaming, filters); out of range is
    /// [`Error::NoSuchClass`].
    pub fn class_mut(&mut self, i: usize) -> Result<&mut NavMesh> {
        let count = self.classes.len();
        self.classes
            .get_mut(i)
            .ok_or(Error::NoSuchClass { class: i, count })
    }

    pub(crate) fn classes_mut(&mut self) -> &mut [NavMesh] {
        &mut self.classes
    }

    /// The number of classes (at least 1).
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Always false: a world has at least one class.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// The class for an agent of this radius: the one with the smallest AgentRadius ≥
    /// `radius` (the lowest index among equals), or the largest class (largest AgentRadius,
    /// lowest index among equals) if none is large enough. A NaN radius is large enough
    /// for no class.
    pub fn class_for(&self, radius: f64) -> usize {
        let r = |i: usize| f64::from(self.classes[i].settings().agent_radius());
        let mut fitting: Option<usize> = None;
        let mut largest = 0;
        for i in 0..self.classes.len() {
            if r(i) >= radius && fitting.map_or(true, |f| r(i) < r(f)) {
                fitting = Some(i);
            }
            if r(i) > r(largest) {
                largest = i;
            }
        }
        fitting.unwrap_or(largest)
    }

    /// The ONNW bytes: each class's ONNM, in class order.
    pub fn save(&self) -> Vec<u8> {
        let classes: Vec<Vec<u8>> = self.classes.iter().map(NavMesh::save).collect();
        write_onnw(&classes)
    }

    /// Reads ONNW bytes ([`crate::envelope::read_onnw`]: every rule broken is a
    /// [`FormatError`] naming the field, within `class i` for a class's ONNM). The classes
    /// load without tile caches.
    pub fn load(bytes: &[u8]) -> Result<Self, FormatError> {
        let classes = read_onnw(bytes)?
            .into_iter()
            .map(|(s, m)| NavMesh::from_parts(s, Store::Plain(Box::new(m))))
            .collect();
        Ok(NavWorld { classes })
    }
}
