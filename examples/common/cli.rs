//! Command-line options every model-problem example takes, with `NUDA_*` environment
//! fallbacks: NUDA's `config`/`envconfig`, as clap arguments.

#![allow(dead_code)]

use clap::Args;

/// Options shared by the model-problem examples.
#[derive(Args, Debug, Clone)]
pub struct Common {
    /// Problem size (the problem's default when unset).
    #[arg(short = 'n', long, env = "NUDA_SIZE")]
    pub size: Option<usize>,
    /// Variant to run: a name such as `base` or `dmine(4, 4)`, or `all`.
    #[arg(short, long, env = "NUDA_VARIANT", default_value = "all")]
    pub variant: String,
    /// Device: an index or a name substring from `nuda::devices()`.
    #[arg(short, long, env = "NUDA_DEVICE")]
    pub device: Option<String>,
    /// Engine: auto, opencl or native.
    #[arg(short, long, env = "NUDA_ENGINE")]
    pub engine: Option<String>,
    /// Timed repetitions per variant (the best is reported).
    #[arg(short, long, env = "NUDA_REPS", default_value_t = 3)]
    pub reps: u32,
    /// Small sizes, for a quick check.
    #[arg(short, long, env = "NUDA_QUICK")]
    pub quick: bool,
    /// Tune the `tune(..)` variants on this device where no winner is stored yet (as
    /// `NUDA_TUNE=1`; set `NUDA_TUNE=force` to search again).
    #[arg(long)]
    pub tune: bool,
}

impl Common {
    /// Hands the device and engine choices to the runtime, which reads them at first use.
    pub fn apply(&self) {
        if let Some(d) = &self.device {
            std::env::set_var("NUDA_DEVICE", d);
        }
        if let Some(e) = &self.engine {
            std::env::set_var("NUDA_ENGINE", e);
        }
        if self.tune && std::env::var_os("NUDA_TUNE").is_none() {
            std::env::set_var("NUDA_TUNE", "1");
        }
    }

    /// The size: given, else `quick` or `full`.
    pub fn size_or(&self, full: usize, quick: usize) -> usize {
        self.size.unwrap_or(if self.quick { quick } else { full })
    }

    /// Whether variant `name` was asked for.
    pub fn wants(&self, name: &str) -> bool {
        self.variant == "all" || self.variant.replace(' ', "") == name.replace(' ', "")
    }
}
