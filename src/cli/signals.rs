//! Ctrl-C and SIGTERM (what a CI runner sends when a job is cancelled), listened for from the
//! moment a command starts so that none is missed between starting a run and watching it.

use super::exit::Exit;

/// A signal that ends a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Interrupt,
    Terminate,
}

impl Signal {
    /// The shell's code for a command ended by this signal: 128 + its number.
    pub fn exit(self) -> Exit {
        match self {
            Signal::Interrupt => Exit::Interrupted,
            Signal::Terminate => Exit::Terminated,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "interrupted (SIGINT)",
            Signal::Terminate => "terminated (SIGTERM)",
        }
    }
}

/// The handlers, installed when made: from then on the signals no longer kill the process.
pub struct Signals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    pub fn listen() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Signals { interrupt: signal(SignalKind::interrupt()).ok(), terminate: signal(SignalKind::terminate()).ok() }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// The next signal.
    pub async fn recv(&mut self) -> Signal {
        #[cfg(unix)]
        {
            let interrupt = async {
                match &mut self.interrupt {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            let terminate = async {
                match &mut self.terminate {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = interrupt => Signal::Interrupt,
                _ = terminate => Signal::Terminate,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            Signal::Interrupt
        }
    }
}
