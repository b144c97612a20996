//! What a batch reads back for the host checks: the bindings they read, copied after each
//! run into the run's share of one read-back buffer, and handed to the checks as `Outputs`.
//! A binding only checks compared on the device read is not among them
//! (`checks::device::CheckPlan`).

use crate::app::spec::{App, Outputs};
use crate::error::{Result, RuntimeError};
use crate::gpu::interface::Slot;

/// Readback bytes a batch may hold for host checks.
const CHECK_BYTES_PER_BATCH: u64 = 256 << 20;

/// Where one checked binding's copy sits in a run's share of the readback buffer.
pub(crate) struct Checked {
    pub key: (u32, u32),
    pub offset: u64,
    pub bytes: u64,
}

/// The checked bindings of a run, one after the other: a run's share is `stride` bytes.
pub(crate) struct ReadBack {
    pub checked: Vec<Checked>,
    pub stride: u64,
}

impl ReadBack {
    /// Lays out the bindings `app`'s host checks read, among `slots`: those of the checks
    /// `on_host` names (by index) and of the application's own host check.
    pub(crate) fn plan(
        app: &App,
        slots: &[Slot],
        on_host: &dyn Fn(usize) -> bool,
    ) -> Result<ReadBack> {
        let mut checked = Vec::new();
        let mut stride = 0;
        for key in app.read_bindings(on_host) {
            let slot = slots
                .iter()
                .find(|s| (s.group, s.binding) == key)
                .ok_or_else(|| {
                    RuntimeError::Input(format!(
                        "{}: a check reads binding {}:{}, which the spec does not declare",
                        app.name, key.0, key.1
                    ))
                })?;
            let bytes = u64::from(slot.words) * 4;
            checked.push(Checked {
                key,
                offset: stride,
                bytes,
            });
            stride += bytes;
        }
        Ok(ReadBack { checked, stride })
    }

    /// `batch` cut so that a batch's read-back copies fit `CHECK_BYTES_PER_BATCH`; at
    /// least one run.
    pub(crate) fn bound(&self, batch: usize) -> usize {
        match CHECK_BYTES_PER_BATCH.checked_div(self.stride) {
            Some(fit) => batch.min(fit.max(1) as usize),
            None => batch,
        }
        .max(1)
    }

    /// The checked bindings of run `run` of a batch, from the words read back.
    pub(crate) fn outputs<'a>(&self, words: &'a [u32], run: usize) -> Outputs<'a> {
        let base = (run as u64 * self.stride / 4) as usize;
        Outputs::new(
            self.checked
                .iter()
                .map(|c| {
                    let start = base + (c.offset / 4) as usize;
                    (c.key, &words[start..start + (c.bytes / 4) as usize])
                })
                .collect(),
        )
    }
}
