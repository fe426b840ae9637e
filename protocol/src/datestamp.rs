//! UTCdatetime values (§3.3): datestamps, `from`/`until` bounds, `responseDate`.

use std::fmt;
use std::time::SystemTime;

use time::macros::format_description;
use time::{Date, OffsetDateTime, PrimitiveDateTime, UtcOffset};

/// The two granularities of OAI-PMH (§3.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Granularity {
    /// `YYYY-MM-DD`.
    Day,
    /// `YYYY-MM-DDThh:mm:ssZ`.
    Seconds,
}

impl Granularity {
    /// The value of Identify's `<granularity>`.
    pub fn as_str(self) -> &'static str {
        match self {
            Granularity::Day => "YYYY-MM-DD",
            Granularity::Seconds => "YYYY-MM-DDThh:mm:ssZ",
        }
    }

    /// Parses Identify's `<granularity>` value.
    pub fn from_identify(s: &str) -> Option<Self> {
        match s.trim() {
            "YYYY-MM-DD" => Some(Granularity::Day),
            "YYYY-MM-DDThh:mm:ssZ" => Some(Granularity::Seconds),
            _ => None,
        }
    }
}

/// An instant in UTC at one-second resolution, as seconds since the Unix epoch.
///
/// ```
/// use modoai_protocol::{Datestamp, Granularity};
///
/// let (d, g) = Datestamp::parse_request("2024-02-29").unwrap();
/// assert_eq!(g, Granularity::Day);
/// assert_eq!(d.to_string(), "2024-02-29T00:00:00Z");
/// assert_eq!(d.end_of_day().to_string(), "2024-02-29T23:59:59Z");
/// assert!(Datestamp::parse_request("2024-02-29T10:00:00.5Z").is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Datestamp(i64);

impl Datestamp {
    /// The instant `secs` seconds after 1970-01-01T00:00:00Z.
    pub const fn from_unix(secs: i64) -> Self {
        Datestamp(secs)
    }

    /// Seconds since the Unix epoch.
    pub const fn unix(self) -> i64 {
        self.0
    }

    /// The current time, truncated to the second.
    pub fn now() -> Self {
        Self::from_system_time(SystemTime::now())
    }

    /// A file time truncated to the second (times before 1970 round down as well).
    pub fn from_system_time(t: SystemTime) -> Self {
        match t.duration_since(SystemTime::UNIX_EPOCH) {
            Ok(d) => Datestamp(d.as_secs() as i64),
            Err(e) => {
                let d = e.duration();
                let secs = d.as_secs() as i64 + i64::from(d.subsec_nanos() > 0);
                Datestamp(-secs)
            }
        }
    }

    /// Parses a `from`/`until` argument strictly: exactly `YYYY-MM-DD` or `YYYY-MM-DDThh:mm:ssZ`.
    /// Day values mean the start of that day.
    pub fn parse_request(s: &str) -> Option<(Datestamp, Granularity)> {
        let day = format_description!("[year repr:full]-[month]-[day]");
        let secs = format_description!("[year repr:full]-[month]-[day]T[hour]:[minute]:[second]Z");
        match s.len() {
            10 => Date::parse(s, &day)
                .ok()
                .map(|d| (Self::from_date(d), Granularity::Day)),
            20 => PrimitiveDateTime::parse(s, &secs).ok().map(|t| {
                (
                    Datestamp(t.assume_utc().unix_timestamp()),
                    Granularity::Seconds,
                )
            }),
            _ => None,
        }
        .filter(|_| s.as_bytes()[..4].iter().all(u8::is_ascii_digit))
    }

    /// Parses a datestamp from a response leniently: fractions, a missing `Z`, an explicit UTC
    /// offset or a day-only value are accepted, as real providers send all of them.
    pub fn parse_lenient(s: &str) -> Option<Datestamp> {
        let s = s.trim();
        if let Some((d, _)) = Self::parse_request(s) {
            return Some(d);
        }
        if let Ok(t) = OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339) {
            return Some(Datestamp(t.unix_timestamp()));
        }
        let bare = s.trim_end_matches('Z');
        let bare = bare.split('.').next().unwrap_or(bare);
        let fmt = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
        PrimitiveDateTime::parse(bare, &fmt)
            .ok()
            .map(|t| Datestamp(t.assume_offset(UtcOffset::UTC).unix_timestamp()))
    }

    /// The last second of this instant's UTC day.
    pub fn end_of_day(self) -> Datestamp {
        Datestamp(self.0.div_euclid(86_400) * 86_400 + 86_399)
    }

    /// The first second of this instant's UTC day.
    pub fn start_of_day(self) -> Datestamp {
        Datestamp(self.0.div_euclid(86_400) * 86_400)
    }

    /// Formats at the given granularity.
    pub fn format(self, granularity: Granularity) -> String {
        let t = self.to_offset_date_time();
        match granularity {
            Granularity::Day => t.format(format_description!("[year]-[month]-[day]")),
            Granularity::Seconds => t.format(format_description!(
                "[year]-[month]-[day]T[hour]:[minute]:[second]Z"
            )),
        }
        .unwrap_or_default()
    }

    /// This instant plus `secs` seconds.
    pub fn plus(self, secs: i64) -> Datestamp {
        Datestamp(self.0.saturating_add(secs))
    }

    fn from_date(d: Date) -> Datestamp {
        Datestamp(d.midnight().assume_utc().unix_timestamp())
    }

    fn to_offset_date_time(self) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(self.0).unwrap_or(OffsetDateTime::UNIX_EPOCH)
    }
}

impl fmt::Display for Datestamp {
    /// Seconds granularity, the form of `responseDate` (never with fractions).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.format(Granularity::Seconds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_forms_only() {
        for bad in [
            "2024-1-01",
            "2024-01-01T00:00:00",
            "2024-01-01T00:00:00+00:00",
            "2024-01-01T00:00:00.0Z",
            "2024-13-01",
            "2024-02-30",
            "junk",
            "",
            "+024-01-01",
            "2024-01-01T24:00:00Z",
        ] {
            assert!(
                Datestamp::parse_request(bad).is_none(),
                "{bad} must be rejected"
            );
        }
        let (d, g) = Datestamp::parse_request("1970-01-01T00:00:01Z").unwrap();
        assert_eq!((d.unix(), g), (1, Granularity::Seconds));
    }

    #[test]
    fn lenient_forms() {
        for (s, unix) in [
            ("2001-01-01T00:00:00.123Z", 978_307_200),
            ("2001-01-01T00:00:00", 978_307_200),
            ("2001-01-01T01:00:00+01:00", 978_307_200),
            ("2001-01-01", 978_307_200),
        ] {
            assert_eq!(
                Datestamp::parse_lenient(s).map(Datestamp::unix),
                Some(unix),
                "{s}"
            );
        }
    }

    #[test]
    fn day_bounds() {
        let d = Datestamp::from_unix(978_307_200 + 3_600);
        assert_eq!(d.start_of_day().to_string(), "2001-01-01T00:00:00Z");
        assert_eq!(d.end_of_day().to_string(), "2001-01-01T23:59:59Z");
        assert_eq!(d.format(Granularity::Day), "2001-01-01");
    }

    #[test]
    fn before_epoch() {
        let t = SystemTime::UNIX_EPOCH - std::time::Duration::from_millis(1500);
        assert_eq!(Datestamp::from_system_time(t).unix(), -2);
        assert_eq!(Datestamp::from_unix(-1).to_string(), "1969-12-31T23:59:59Z");
    }
}
