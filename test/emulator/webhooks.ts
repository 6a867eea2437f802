/**
 * Completion webhook deliveries.
 *
 * One delivery per terminal state reached by a run that has a `completionWebhookUrl`.
 * The first attempt is made as soon as the run ends; on a non-2xx status, a connection
 * error or a timeout, it is retried 3 times, after 1, 2 and 4 steps of emulator time
 * (`stepMs` each: 1 s / 2 s / 4 s at demo speed), then the delivery is marked `failed`.
 * Only loopback hosts are contacted (this machine has no other network); any other URL is
 * recorded as `refused` without an attempt.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { Scheduler } from './clock';
import type { WebhookDelivery } from './domain';

export const WEBHOOK_RETRY_STEPS: readonly number[] = [1, 2, 4];
/** Real-time limit of one attempt (connect + response). */
export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 5_000;
export const WEBHOOK_USER_AGENT = 'agent-runs-emulator-webhooks/1.0';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackUrl(url: URL): boolean {
  return LOOPBACK_HOSTS.has(url.hostname) || /^127(?:\.\d{1,3}){3}$/.test(url.hostname);
}

interface AttemptResult {
  status?: number;
  error?: string;
}

export class WebhookDispatcher {
  readonly deliveries: WebhookDelivery[] = [];
  private readonly inFlight = new Set<http.ClientRequest>();

  constructor(
    private readonly scheduler: Scheduler,
    private readonly stepMs: number,
    private readonly newId: () => string,
  ) {}

  /** Records a delivery and makes its first attempt as soon as the scheduler runs. */
  enqueue(agentId: string, event: string, url: string, payload: unknown): WebhookDelivery {
    const delivery: WebhookDelivery = {
      id: this.newId(),
      agentId,
      event,
      url,
      createdAt: this.scheduler.now(),
      body: JSON.stringify(payload),
      state: 'pending',
      attempts: [],
    };
    this.deliveries.push(delivery);
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      this.refuse(delivery, 'not an http(s) URL');
    } else if (!isLoopbackUrl(parsed)) {
      this.refuse(delivery, `host ${parsed.hostname} is not a loopback address; the emulator only delivers to 127.0.0.1, localhost or [::1]`);
    } else {
      const target = parsed;
      delivery.nextAttemptAt = delivery.createdAt;
      this.scheduler.schedule(0, () => this.attempt(delivery, target));
    }
    return delivery;
  }

  /** Aborts every attempt in flight (scheduled retries are dropped with the scheduler's tasks). */
  abortAll(): void {
    for (const request of this.inFlight) request.destroy(new Error('emulator closed'));
    this.inFlight.clear();
  }

  reset(): void {
    this.abortAll();
    this.deliveries.length = 0;
  }

  private refuse(delivery: WebhookDelivery, reason: string): void {
    delivery.state = 'refused';
    delivery.refusedReason = reason;
  }

  private async attempt(delivery: WebhookDelivery, url: URL): Promise<void> {
    if (!this.deliveries.includes(delivery)) return; // dropped by a reset
    const number = delivery.attempts.length + 1;
    const at = this.scheduler.now();
    const started = performance.now();
    delivery.nextAttemptAt = undefined;
    const result = await this.post(delivery, url, number);
    delivery.attempts.push({ attempt: number, at, ...result, durationMs: Math.round(performance.now() - started) });
    if (result.status !== undefined && result.status >= 200 && result.status < 300) {
      delivery.state = 'delivered';
      return;
    }
    const retryIn = WEBHOOK_RETRY_STEPS[number - 1];
    if (retryIn === undefined) {
      delivery.state = 'failed';
      return;
    }
    const delay = retryIn * this.stepMs;
    delivery.nextAttemptAt = this.scheduler.now() + delay;
    this.scheduler.schedule(delay, () => this.attempt(delivery, url));
  }

  private post(delivery: WebhookDelivery, url: URL, attempt: number): Promise<AttemptResult> {
    return new Promise((resolve) => {
      const transport = url.protocol === 'https:' ? https : http;
      const request = transport.request(url, {
        method: 'POST',
        agent: false,
        timeout: WEBHOOK_ATTEMPT_TIMEOUT_MS,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(delivery.body),
          'user-agent': WEBHOOK_USER_AGENT,
          'x-webhook-event': delivery.event,
          'x-webhook-delivery': delivery.id,
          'x-webhook-attempt': String(attempt),
          connection: 'close',
        },
      });
      this.inFlight.add(request);
      let settled = false;
      const finish = (result: AttemptResult): void => {
        if (settled) return;
        settled = true;
        this.inFlight.delete(request);
        resolve(result);
      };
      request.on('timeout', () => request.destroy(new Error(`no response within ${WEBHOOK_ATTEMPT_TIMEOUT_MS} ms`)));
      request.on('error', (error) => finish({ error: error.message }));
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => finish({ status: response.statusCode }));
        response.on('error', (error) => finish({ status: response.statusCode, error: error.message }));
      });
      request.end(delivery.body);
    });
  }
}
