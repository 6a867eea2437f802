// The words every surface uses for a send the sender refused because an earlier one may have arrived.
import type { L10n } from '../../../base/common/l10n';
import { formatClock } from '../../../base/common/time';

/**
 * What every surface says of a send refused for an `uncertain` target; `what` names the request
 * ("a run of test X"), unless the surface named it already.
 */
export function uncertainText(what: string | undefined, since: number, l10n: L10n): string {
  return what === undefined
    ? l10n.t('An earlier request may have reached the service at {0}; check it before sending again.', formatClock(since))
    : l10n.t('An earlier request for {0} may have reached the service at {1}; check it before sending again.', what, formatClock(since));
}
