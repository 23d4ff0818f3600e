//! PNG pictures of the examples' data: grey levels of a float image, colour-mapped counts,
//! and the check `scripts/examples` runs on what they wrote.

#![allow(dead_code)]

use std::path::Path;

/// Writes `rgb` (3 bytes per pixel, rows top first) as an 8-bit RGB PNG.
pub fn write_rgb(path: &Path, w: usize, h: usize, rgb: &[u8]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let size =
        |v: usize| u32::try_from(v).map_err(|_| format!("{v} pixels is too large for a PNG"));
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), size(w)?, size(h)?);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgb).map_err(|e| e.to_string())
}

/// Writes `values` (rows top first) as grey levels, `lo` black and `hi` white, clamped.
pub fn write_grey(
    path: &Path,
    w: usize,
    h: usize,
    values: &[f32],
    lo: f32,
    hi: f32,
) -> Result<(), String> {
    let rgb: Vec<u8> = values
        .iter()
        .flat_map(|&v| {
            let g = (((v - lo) / (hi - lo)).clamp(0.0, 1.0) * 255.0).round() as u8;
            [g, g, g]
        })
        .collect();
    write_rgb(path, w, h, &rgb)
}

/// Reads a PNG back: its width, height, and how many distinct colours it has. An image
/// with one colour is blank.
pub fn inspect(path: &Path) -> Result<(u32, u32, usize), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .map_err(|e| e.to_string())?;
    let mut buf = vec![0; reader.output_buffer_size().ok_or("the PNG is too large")?];
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let px = info.color_type.samples();
    let colours: std::collections::HashSet<&[u8]> = buf[..info.buffer_size()].chunks(px).collect();
    Ok((info.width, info.height, colours.len()))
}
