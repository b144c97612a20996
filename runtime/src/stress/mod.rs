//! What stress runs beside an application: the strategies and each run's parameters drawn
//! from its seed (`strategy`), the adaptive shapes of systematic stress (`shapes`), and the
//! shapes tuned to a device (`profile`).

pub mod profile;
pub mod shapes;
