//! The [`Config`] settings of the access rules and flow limits.

use super::current::{resolve, Policy};
use crate::access::{AccessRules, AccessSection};
use crate::flow::{FlowLimits, FlowSection};
use crate::{Config, ConfigError};

impl Config {
    /// Who may receive which metadata format. Defaults to everything open.
    pub fn access(self, rules: AccessRules) -> Self {
        let flow = self.policy.current().flow.limits.clone();
        self.with_policy(rules, flow)
    }

    /// Rate limits and the bound on enhanced responses of the OAI-PMH route. Defaults to
    /// [`FlowLimits::new`]: no rate limit, 32 enhanced responses at once.
    pub fn flow(self, limits: FlowLimits) -> Self {
        let access = self.policy.current().access.clone();
        self.with_policy(access, limits)
    }

    /// Applies `[access]` and `[flow]` sections of a configuration file.
    pub fn apply_policy(
        self,
        access: &AccessSection,
        flow: &FlowSection,
    ) -> Result<Self, ConfigError> {
        let (access, flow) = resolve(access, flow)?;
        Ok(self.with_policy(access, flow))
    }

    /// The rules and limits in force, to replace them later (see [`Policy::reload`] and
    /// [`Reloader`](super::Reloader)). Configs cloned from this one share them.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// A policy of its own: a config being built shares nothing yet with the ones it was cloned
    /// from.
    fn with_policy(mut self, access: AccessRules, flow: FlowLimits) -> Self {
        self.policy = Policy::new(access, flow);
        self
    }
}
