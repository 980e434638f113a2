import './ConnectionStatus.css';
import { describeConnection, type ConnectionState } from './connectionMachine.ts';
import { useT } from '../i18n/useT.ts';

/** The connection indicator: everything it shows comes from the one state machine. */
export function ConnectionStatus({ state }: { state: ConnectionState }) {
  useT(); // re-rendered in the page's language
  const view = describeConnection(state);
  return (
    <div
      className={`connection-status tone-${view.tone}`}
      data-testid="connection-status"
      data-state={state.status}
      role="status"
      title={view.detail}
    >
      <span className="status-dot" aria-hidden="true" />
      <span className="status-label">{view.label}</span>
      <span className="visually-hidden">: {view.detail}</span>
    </div>
  );
}
