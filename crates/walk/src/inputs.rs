//! What trips tables and profiler exports say about one kernel: the explicit trip counts and
//! the instruction-count evidence the trip resolver reads, the parsed profiles mapper g reads,
//! and the assumption for branches on unknown data that the profile supports. Shared by the
//! CLI's `--trips` and the Python package's `trips=`, so both read the same files the same way.

use profile::{Format, Invocation, LoopRef, Profile, ProfileError, Quantity};

use crate::UnknownBranch;

#[derive(Debug, thiserror::Error)]
pub enum InputsError {
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error("no profiler file has kernel `{kernel}` ({files})")]
    NoKernel { kernel: String, files: String },
}

/// What the trips inputs say about one kernel.
#[derive(Debug, Clone, Default)]
pub struct TripData {
    /// Trips-table rows naming this kernel, in file order.
    pub explicit: Vec<ir::ExplicitTrip>,
    /// Warp instructions per warp from the first profiler file that has them, in the
    /// profiler's instructions (`ir::ProfileEvidence::in_ptx` converts them for a GPU).
    pub evidence: Option<ir::ProfileEvidence>,
    /// Every parsed profiler file (mapper g reads DRAM / L2 / shared metrics from them).
    pub profiles: Vec<Profile>,
    /// Warnings about the inputs, each naming its file (a row naming no kernel of the PTX, a
    /// profiler file without instruction counts).
    pub notes: Vec<String>,
}

impl TripData {
    /// The inputs of `ir::resolve_trips`.
    pub fn inputs(&self) -> ir::TripInputs<'_> {
        ir::TripInputs {
            explicit: &self.explicit,
            profile: self.evidence.as_ref(),
        }
    }

    /// The profile's instruction count in PTX instructions for a GPU with `sass_per_ptx` SASS
    /// instructions per PTX instruction (`ir::ProfileEvidence::in_ptx`): what the trip
    /// solver compares with the IDG's counts when the GPU is known.
    pub fn in_ptx(mut self, sass_per_ptx: f64) -> TripData {
        self.evidence = self.evidence.map(|e| e.in_ptx(sass_per_ptx));
        self
    }

    /// The busy share of the warp slots of the selected launch of `entry`
    /// ([`crate::uneven::busy_share`]) on a GPU of `slots`, which splits profile-fitted loops
    /// between warps.
    pub fn busy_share(
        &self,
        entry: &str,
        inv: Invocation,
        slots: Option<crate::uneven::Slots>,
    ) -> Option<f64> {
        self.launch(entry, inv)
            .and_then(|l| crate::uneven::busy_share(l, slots))
    }

    /// The selected launch of `entry` in the first profiler file that profiled it.
    pub fn launch(&self, entry: &str, inv: Invocation) -> Option<&profile::Launch> {
        self.profiles.iter().find_map(|p| p.launch(entry, inv).ok())
    }

    /// The assumption for branches on unknown data that the profiles support (a kernel whose
    /// profile shows no divergent branch runs one side; one that shows divergence runs both),
    /// with where it came from; `None` without evidence.
    pub fn unknown_branch(&self, entry: &str, inv: Invocation) -> Option<(UnknownBranch, String)> {
        self.profiles.iter().find_map(|p| {
            let m = p
                .launch(entry, inv)
                .ok()?
                .quantity(Quantity::DivergentBranches)?;
            Some((
                UnknownBranch::from_divergent_branches(Some(m.value)),
                format!("{} divergent branches in {}", m.value, p.origin),
            ))
        })
    }
}

/// The trip solver's evidence from one profiled launch: warp instructions per warp and, where
/// measured, global and shared loads and stores per warp; `None` without an instruction or
/// warp count. `file` names the source in trip-count reports. The memory counters are taken
/// as PTX counts: the measured SASS factors of these classes are 1 (docs/gpu-profile.md).
pub fn evidence(launch: &profile::Launch, file: &str) -> Option<ir::ProfileEvidence> {
    let w = launch.warp_insts_per_warp()?;
    let warps = launch.quantity(Quantity::WarpsLaunched)?.value;
    let per_warp = |q: Quantity| launch.quantity(q).map(|m| m.value / warps);
    Some(ir::ProfileEvidence {
        file: file.to_string(),
        warp_insts_per_warp: w,
        classes: ir::ClassCounts {
            global_loads: per_warp(Quantity::GlobalLoadRequests),
            global_stores: per_warp(Quantity::GlobalStoreRequests),
            shared_loads: per_warp(Quantity::SharedLoadInsts),
            shared_stores: per_warp(Quantity::SharedStoreInsts),
        },
    })
}

/// Whether a kernel name printed in a trips table or profiler file may denote `entry`
/// (mangled): what [`load`] keeps.
fn may_name(entry: &str, printed: &str) -> bool {
    ir::names::names_kernel(entry, printed) || profile::matches(printed, entry)
}

/// Reads the trips tables and profiler files at `paths` for kernel `entry` (mangled),
/// streaming each and keeping only the rows and launches that may be `entry`'s, then
/// [`trip_data`]: memory grows with what is kept, not with the files.
pub fn load(
    paths: &[std::path::PathBuf],
    entry: &str,
    kernels: Option<&[&str]>,
    inv: Invocation,
) -> Result<TripData, InputsError> {
    let files = paths
        .iter()
        .map(|p| profile::load_filtered(p, &mut |name| may_name(entry, name)))
        .collect::<Result<Vec<_>, _>>()?;
    trip_data(files, entry, kernels, inv)
}

/// Reads parsed trips inputs for kernel `entry` (mangled). With `kernels` (the module's
/// kernels, mangled), a trips-table row naming none of them is a warning in
/// [`TripData::notes`] (a table may cover several PTX files, so it is not an error; but it is
/// never silently ignored); without, rows naming other kernels are skipped unchecked.
pub fn trip_data(
    files: Vec<Profile>,
    entry: &str,
    kernels: Option<&[&str]>,
    inv: Invocation,
) -> Result<TripData, InputsError> {
    let names_row = |k: &str, row: &profile::TripRow| may_name(k, &row.kernel);
    let listing = |ks: &[&str]| -> String {
        ks.iter()
            .map(|k| ir::names::display_name(k))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut data = TripData::default();
    let mut profiler_files = Vec::new();
    for p in files {
        if p.format == Format::TripsTable {
            // Rows a filtered read skipped: warned about as the rows below are.
            if let Some(ks) = kernels {
                for sk in &p.skipped {
                    if ks.iter().any(|k| may_name(k, &sk.kernel)) {
                        continue;
                    }
                    let more = match sk.rows {
                        1 => String::new(),
                        n => format!(" (and {} more rows naming it)", n - 1),
                    };
                    data.notes.push(format!(
                        "{}: row {}: kernel `{}` is not in the PTX file; row ignored{more} (kernels: {})",
                        p.origin,
                        sk.first_row,
                        sk.kernel,
                        listing(ks)
                    ));
                }
            }
            for row in &p.trips {
                if !names_row(entry, row) {
                    if let Some(ks) = kernels.filter(|ks| !ks.iter().any(|k| names_row(k, row))) {
                        data.notes.push(format!(
                            "{}: row {}: kernel `{}` is not in the PTX file; row ignored (kernels: {})",
                            p.origin,
                            row.row,
                            row.kernel,
                            listing(ks)
                        ));
                    }
                    continue;
                }
                data.explicit.push(ir::ExplicitTrip {
                    file: p.origin.clone(),
                    row: row.row,
                    loop_ref: match &row.loop_ref {
                        LoopRef::Label(l) => l.clone(),
                        LoopRef::Line(n) => format!("line:{n}"),
                    },
                    trips: row.trips,
                });
            }
            continue;
        }
        profiler_files.push(p.origin.clone());
        match p.kernel(entry) {
            Ok(_) => match evidence(p.launch(entry, inv)?, &p.origin) {
                Some(e) if data.evidence.is_none() => data.evidence = Some(e),
                Some(_) => {}
                None => data.notes.push(format!(
                    "{}: no warp instruction / warps launched counts for `{entry}`; not used for trip counts",
                    p.origin
                )),
            },
            // A file profiling other kernels only is fine as long as some file has this one.
            Err(ProfileError::NoKernel { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        data.profiles.push(p);
    }
    if !profiler_files.is_empty() && data.profiles.iter().all(|p| p.kernel(entry).is_err()) {
        return Err(InputsError::NoKernel {
            kernel: ir::names::display_name(entry),
            files: profiler_files.join(", "),
        });
    }
    Ok(data)
}
