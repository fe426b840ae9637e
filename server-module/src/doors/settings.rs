//! The settings of the front doors: the `[front-doors]` section of the configuration file and
//! the [`Config`] setters behind it.

use serde::Deserialize;

use crate::Config;

/// Which front doors are open. Both are by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Doors {
    pub(crate) html: bool,
    pub(crate) signposting: bool,
}

impl Default for Doors {
    fn default() -> Self {
        Doors {
            html: true,
            signposting: true,
        }
    }
}

/// `[front-doors]` of the configuration file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct FrontDoorsSection {
    /// Serve the HTML view of the OAI route to browsers that prefer HTML. Default true.
    pub html: Option<bool>,
    /// Send FAIR Signposting `Link` headers on the files and serve their Linksets. Default true.
    pub signposting: Option<bool>,
}

impl Config {
    /// Whether a browser that prefers HTML gets the OAI-PMH response as an HTML page (every
    /// other client gets the XML; `ROUTE/xml` always answers XML). Defaults to true.
    pub fn html_view(mut self, on: bool) -> Self {
        self.doors.html = on;
        self
    }

    /// Whether the files that are records carry FAIR Signposting `Link` headers (`cite-as`,
    /// `describedby`, `type`, `linkset`) and have Linksets at `ROUTE/linkset?uri=ID`. In Layer
    /// mode the headers appear once the index exists. Defaults to true.
    pub fn signposting(mut self, on: bool) -> Self {
        self.doors.signposting = on;
        self
    }

    /// Applies a `[front-doors]` section; absent keys stay as they are.
    pub fn apply_front_doors(mut self, section: &FrontDoorsSection) -> Self {
        if let Some(on) = section.html {
            self = self.html_view(on);
        }
        if let Some(on) = section.signposting {
            self = self.signposting(on);
        }
        self
    }
}
