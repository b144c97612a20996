//! What stress runs beside an application, described once: the strategies (`strategy`), the
//! progress models runs are scheduled under (`schedule`), systematic stress's access
//! sequences (`sequence`), a session's settings and each run's parameters drawn from its seed
//! (`params`), the adaptive shapes' records (`shapes`) and device profiles (`profile`).

pub mod params;
pub mod profile;
pub mod schedule;
pub mod sequence;
pub mod shapes;
pub mod strategy;
