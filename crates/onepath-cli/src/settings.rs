//! Build settings from TOML: every field of [`NavSettings`] by its name (`cell_size`,
//! `agent_radius`, ..., `off_mesh_links`), each read through its validating setter by the
//! settings' serde support; a field left out keeps its default. `onepath settings --default`
//! prints the defaults in this form.

use std::path::Path;

use onepath::NavSettings;

use crate::error::{read_file, CliError};

/// Reads a settings file. A syntax error, an unknown field or a value out of range is one
/// line naming the file, the line and what is wrong.
pub fn read(path: &Path) -> Result<NavSettings, CliError> {
    let bytes = read_file(path)?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        CliError::in_file(path, format!("not UTF-8 text (byte {})", e.valid_up_to()))
    })?;
    parse(text).map_err(|m| CliError::in_file(path, m))
}

/// Parses settings TOML; the error names the line (1-based) where the TOML reader points.
pub fn parse(text: &str) -> Result<NavSettings, String> {
    toml::from_str::<NavSettings>(text).map_err(|e| {
        let message = e.message().trim().replace('\n', " ");
        match e.span() {
            // A value the setters refused is reported against the whole document: say so
            // without pointing at line 1.
            Some(span) if !(span.start == 0 && span.end >= text.trim_end().len()) => {
                let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                format!("line {line}: {message}")
            }
            _ => name_the_field(&message),
        }
    })
}

/// The setters name a setting as the spec does (`AgentMaxSlope = 91 is out of range`): say
/// which TOML field that is (`agent_max_slope: AgentMaxSlope = 91 ...`).
fn name_the_field(message: &str) -> String {
    let word = message.split([' ', ':']).next().unwrap_or("");
    if word.len() < 2 || !word.starts_with(|c: char| c.is_ascii_uppercase()) {
        return message.to_string();
    }
    let mut field = String::new();
    for (i, c) in word.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                field.push('_');
            }
            field.push(c.to_ascii_lowercase());
        } else {
            field.push(c);
        }
    }
    let known = to_toml(&NavSettings::default())
        .lines()
        .any(|l| l.starts_with(&format!("{field} = ")));
    if known {
        format!("{field}: {message}")
    } else {
        message.to_string()
    }
}

/// The TOML of `settings`, every field named.
pub fn to_toml(settings: &NavSettings) -> String {
    toml::to_string(settings).expect("settings serialise to TOML")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_toml_reads_back_as_the_defaults() {
        let text = to_toml(&NavSettings::default());
        for field in [
            "origin",
            "tile_size",
            "cell_size",
            "max_verts_per_poly",
            "walkable_climb",
            "agent_radius",
            "agent_height",
            "agent_max_slope",
            "cell_height",
            "snap_bits",
            "partition",
            "min_region_area",
            "merge_region_area",
            "contour_max_error",
            "max_edge_length",
            "detail_sample_distance",
            "detail_max_error",
            "height",
            "area",
            "flags",
            "off_mesh_links",
        ] {
            assert!(
                text.lines().any(|l| l.starts_with(&format!("{field} = "))),
                "{field} missing from\n{text}"
            );
        }
        assert_eq!(parse(&text).unwrap(), NavSettings::default());
    }

    #[test]
    fn errors_name_the_line_or_the_setting() {
        let e = parse("cell_size = 0.3\nagent_radius = \"wide\"\n").unwrap_err();
        assert!(e.starts_with("line 2: "), "{e}");
        let e = parse("cell_size = 0.3\ncolour = 3\n").unwrap_err();
        assert!(e.starts_with("line 2: ") && e.contains("colour"), "{e}");
        let e = parse("agent_max_slope = 91.0\n").unwrap_err();
        assert!(
            e.contains("agent_max_slope") || e.contains("AgentMaxSlope"),
            "{e}"
        );
        assert!(e.contains("91"), "{e}");
    }
}
