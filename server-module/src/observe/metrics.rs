//! [`Metrics`]: the standalone server's Prometheus metrics, in a registry of its own (no global
//! recorder), encoded as OpenMetrics text on each scrape.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::SystemTime;

use modoai_tools::PluginObserver;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::{Registry, Unit};

use super::Refusal;

/// Reads the index's size and the end of its last full scan, when it exists.
pub(crate) type IndexSource = Box<dyn Fn() -> Option<(usize, Option<SystemTime>)> + Send + Sync>;

/// The metrics of one server. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Metrics {
    inner: Arc<Inner>,
}

struct Inner {
    registry: Registry,
    requests: Family<HttpLabels, Counter>,
    bytes: Family<VerbLabel, Counter>,
    duration: Family<VerbLabel, Histogram>,
    flow_rejections: Family<ReasonLabel, Counter>,
    access_refusals: Family<ReasonLabel, Counter>,
    index_records: Gauge,
    index_last_scan: Gauge<f64, AtomicU64>,
    plugins: PluginMetrics,
    index: IndexSource,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

/// The metrics of the `oai_crate` tools, handed to the plugins as their [`PluginObserver`].
#[derive(Clone, Debug)]
pub(crate) struct PluginMetrics {
    runs: Family<RunLabels, Counter>,
    run_duration: Family<PluginLabel, Histogram>,
    cache_hits: Family<PluginLabel, Counter>,
    cache_misses: Family<PluginLabel, Counter>,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct HttpLabels {
    verb: &'static str,
    status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct VerbLabel {
    verb: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabel {
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PluginLabel {
    plugin: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RunLabels {
    plugin: String,
    status: &'static str,
}

/// 1 ms to about 2 minutes: a cached Identify to a slow oai_crate page.
fn request_seconds() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 18))
}

/// 10 ms to about 10 minutes: a digest to a JHOVE batch.
fn tool_seconds() -> Histogram {
    Histogram::new(exponential_buckets(0.01, 2.0, 16))
}

impl Metrics {
    /// Registers every metric, with the `modoai_` prefix.
    pub(crate) fn new(index: IndexSource) -> Metrics {
        let mut registry = Registry::with_prefix("modoai");
        let requests = Family::default();
        let bytes = Family::default();
        let duration = Family::<VerbLabel, Histogram>::new_with_constructor(request_seconds as _);
        let flow_rejections = Family::default();
        let access_refusals = Family::default();
        let index_records = Gauge::default();
        let index_last_scan = Gauge::<f64, AtomicU64>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by OAI-PMH verb (\"site\" for other paths, \"none\" for the OAI route without a valid verb) and status class",
            requests.clone(),
        );
        registry.register_with_unit(
            "http_response",
            "Response body bytes sent, by verb",
            Unit::Bytes,
            bytes.clone(),
        );
        registry.register_with_unit(
            "http_request_duration",
            "Time from a request's arrival to the end of its response body, by verb",
            Unit::Seconds,
            duration.clone(),
        );
        registry.register(
            "flow_rejections",
            "OAI-PMH requests refused with 503, by reason (rate_limit, enhanced_busy, verifying_busy, indexing)",
            flow_rejections.clone(),
        );
        registry.register(
            "access_refusals",
            "OAI-PMH requests refused by access control, by reason (unauthorized = 401, forbidden = 403)",
            access_refusals.clone(),
        );
        registry.register(
            "index_records",
            "Records (files) in the site index, deleted ones not counted",
            index_records.clone(),
        );
        registry.register(
            "index_last_scan_timestamp_seconds",
            "Unix time at which the last full scan of the document root ended",
            index_last_scan.clone(),
        );
        let plugins = PluginMetrics::register(&mut registry);
        Metrics {
            inner: Arc::new(Inner {
                registry,
                requests,
                bytes,
                duration,
                flow_rejections,
                access_refusals,
                index_records,
                index_last_scan,
                plugins,
                index,
            }),
        }
    }

    /// Counts one finished response.
    pub(crate) fn request(
        &self,
        verb: &'static str,
        status: u16,
        bytes: u64,
        seconds: f64,
        refusal: Option<Refusal>,
    ) {
        let i = &self.inner;
        let status = match status {
            100..=199 => "1xx",
            200..=299 => "2xx",
            300..=399 => "3xx",
            400..=499 => "4xx",
            _ => "5xx",
        };
        i.requests.get_or_create(&HttpLabels { verb, status }).inc();
        i.bytes.get_or_create(&VerbLabel { verb }).inc_by(bytes);
        i.duration
            .get_or_create(&VerbLabel { verb })
            .observe(seconds);
        if let Some(r) = refusal {
            let family = if r.is_flow_control() {
                &i.flow_rejections
            } else {
                &i.access_refusals
            };
            family
                .get_or_create(&ReasonLabel { reason: r.as_str() })
                .inc();
        }
    }

    /// The metrics of the plugins.
    pub(crate) fn plugins(&self) -> PluginMetrics {
        self.inner.plugins.clone()
    }

    /// Every metric as OpenMetrics text, the index's read now.
    pub(crate) fn encode(&self) -> String {
        let i = &self.inner;
        if let Some((records, scanned)) = (i.index)() {
            i.index_records
                .set(i64::try_from(records).unwrap_or(i64::MAX));
            if let Some(t) = scanned.and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok()) {
                i.index_last_scan.set(t.as_secs_f64());
            }
        }
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &i.registry);
        text
    }
}

impl PluginMetrics {
    fn register(registry: &mut Registry) -> PluginMetrics {
        let m = PluginMetrics {
            runs: Family::default(),
            run_duration: Family::new_with_constructor(tool_seconds as _),
            cache_hits: Family::default(),
            cache_misses: Family::default(),
        };
        registry.register(
            "plugin_runs",
            "Tool runs of oai_crate, by plugin and status (ok, error, timeout, missing, limit, failed, config-error)",
            m.runs.clone(),
        );
        registry.register_with_unit(
            "plugin_run_duration",
            "Duration of tool runs, by plugin",
            Unit::Seconds,
            m.run_duration.clone(),
        );
        registry.register(
            "plugin_cache_hits",
            "Plugin results answered from the cache, by plugin",
            m.cache_hits.clone(),
        );
        registry.register(
            "plugin_cache_misses",
            "Plugin results the cache lacked (a tool run follows), by plugin",
            m.cache_misses.clone(),
        );
        m
    }
}

impl PluginObserver for PluginMetrics {
    fn run(&self, plugin: &str, status: &'static str, millis: u64) {
        let label = PluginLabel {
            plugin: plugin.to_owned(),
        };
        self.runs
            .get_or_create(&RunLabels {
                plugin: label.plugin.clone(),
                status,
            })
            .inc();
        self.run_duration
            .get_or_create(&label)
            .observe(millis as f64 / 1000.0);
    }

    fn cache(&self, plugin: &str, hit: bool) {
        let family = if hit {
            &self.cache_hits
        } else {
            &self.cache_misses
        };
        family
            .get_or_create(&PluginLabel {
                plugin: plugin.to_owned(),
            })
            .inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_prometheus_conventions() {
        let m = Metrics::new(Box::new(|| Some((3, Some(SystemTime::UNIX_EPOCH)))));
        m.request("Identify", 200, 1000, 0.01, None);
        m.request("ListRecords", 503, 60, 0.001, Some(Refusal::RateLimit));
        m.plugins().run("size", "ok", 20);
        m.plugins().cache("size", true);
        let text = m.encode();
        for line in [
            "modoai_http_requests_total{verb=\"Identify\",status=\"2xx\"} 1",
            "modoai_http_response_bytes_total{verb=\"Identify\"} 1000",
            "modoai_http_request_duration_seconds_count{verb=\"Identify\"} 1",
            "modoai_flow_rejections_total{reason=\"rate_limit\"} 1",
            "modoai_plugin_runs_total{plugin=\"size\",status=\"ok\"} 1",
            "modoai_plugin_cache_hits_total{plugin=\"size\"} 1",
            "modoai_index_records 3",
            "modoai_index_last_scan_timestamp_seconds 0.0",
        ] {
            assert!(text.contains(line), "{line} missing from:\n{text}");
        }
        assert!(text.ends_with("# EOF\n"));
    }
}
