//! The bench's bar chart of the speedup each annotation buys over its problem's base: as SVG
//! (`--svg`, linked from BENCHMARKS.md) and as PNG (`--png`, shown in README.md), with the
//! text in DejaVu Sans (the `dejavu` crate embeds it, so no system font is needed).

use super::table::Row;
use plotters::coord::Shift;
use plotters::prelude::*;

type Res = Result<(), Box<dyn std::error::Error>>;

/// The chart's size in pixels for `n` bars.
fn size(n: usize) -> (u32, u32) {
    // Wide enough for the caption however few bars there are.
    ((160 + 64 * n as u32).max(960), 560)
}

/// The bars: every nuda variant.
fn bars(rows: &[Row]) -> Vec<&Row> {
    rows.iter().filter(|r| r.kind == "nuda").collect()
}

/// Writes the chart as SVG.
pub fn write_svg(rows: &[Row], path: &str) -> Res {
    register_font()?;
    let root = SVGBackend::new(path, size(bars(rows).len())).into_drawing_area();
    draw(&root, rows)
}

/// Writes the chart as PNG: drawn into a pixel buffer, encoded by the `png` crate.
pub fn write_png(rows: &[Row], path: &str) -> Res {
    register_font()?;
    let (w, h) = size(bars(rows).len());
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        draw(&root, rows)?;
    }
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut enc = png::Encoder::new(file, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()?.write_image_data(&rgb)?;
    Ok(())
}

/// Registers DejaVu Sans as `sans-serif`: plotters lays text out with it in both backends,
/// and the bitmap one draws it.
fn register_font() -> Res {
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "DejaVu Sans could not be read as TrueType")?;
    Ok(())
}

/// Draws the chart on `root`.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, rows: &[Row]) -> Res
where
    DB::ErrorType: 'static,
{
    let bars = bars(rows);
    // A log scale: speedups span 0.8x to 20x and more, and a slowdown shows below the 1x line.
    let top = bars.iter().map(|r| r.speedup).fold(1.0f64, f64::max) * 1.3;
    let bottom = bars.iter().map(|r| r.speedup).fold(1.0f64, f64::min) / 1.3;
    root.fill(&WHITE)?;
    let device = bars.first().map_or(String::new(), |r| r.device.clone());
    let mut chart = ChartBuilder::on(root)
        .caption(
            format!("speedup of each annotation over its problem's base — {device}"),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(170)
        .y_label_area_size(50)
        .build_cartesian_2d((0..bars.len()).into_segmented(), (bottom..top).log_scale())?;
    let label = |i: &SegmentValue<usize>| match i {
        SegmentValue::CenterOf(k) | SegmentValue::Exact(k) => bars
            .get(*k)
            .map_or(String::new(), |r| format!("{}: {}", r.problem, r.variant)),
        SegmentValue::Last => String::new(),
    };
    chart
        .configure_mesh()
        .x_labels(bars.len())
        .x_label_formatter(&label)
        .x_label_style(
            ("sans-serif", 11)
                .into_font()
                .transform(FontTransform::Rotate90),
        )
        .y_desc("speedup over base (x, log scale)")
        .draw()?;
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN];
    let problems: Vec<&str> =
        bars.iter()
            .map(|r| r.problem.as_str())
            .fold(Vec::new(), |mut v, p| {
                if !v.contains(&p) {
                    v.push(p);
                }
                v
            });
    for (k, r) in bars.iter().enumerate() {
        let color =
            colors[problems.iter().position(|p| *p == r.problem).unwrap_or(0) % colors.len()];
        chart.draw_series(std::iter::once(Rectangle::new(
            [
                (SegmentValue::Exact(k), 1.0),
                (SegmentValue::Exact(k + 1), r.speedup),
            ],
            color.mix(0.7).filled(),
        )))?;
    }
    root.present()?;
    Ok(())
}
