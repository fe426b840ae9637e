//! [`PluginObserver`]: what the plugins tell a program's metrics as they work, so that this crate
//! needs no metrics library (the server counts them into Prometheus).

/// Receives a count of every tool run and cache lookup, from [`crate::Plugins::observe_with`] on.
pub trait PluginObserver: std::fmt::Debug + Send + Sync {
    /// One run of `plugin`'s tool ended with `status` (`ok`, `error`, `timeout`, `missing`,
    /// `limit`, `failed`, `config-error`) after `millis`.
    fn run(&self, plugin: &str, status: &'static str, millis: u64);

    /// A lookup of `plugin`'s result in the cache: a hit, or a miss (a run follows).
    fn cache(&self, plugin: &str, hit: bool);
}
