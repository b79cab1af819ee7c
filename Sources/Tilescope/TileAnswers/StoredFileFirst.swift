import Foundation
import HTTPServer

/// A derived-format answer (WebP, AVIF, JPEG XL, PNG) of a tile or preview whose stored file is not on this replica
/// yet, with a store that keeps pyramids elsewhere: every step of `DerivedFormats` reads that file (the stand-in,
/// the kept JPEG, the encoders' input), some on the poll thread, so it is fetched first, on a render thread, in the
/// client's budget as the answer's own work; then the answer is made there as on any replica. Once the file is
/// here, answers go the usual way (`reply`).
extension TilescopeApp {
    func answerDerived(_ question: TileQuestion, madeFrom stored: String, _ request: Request) -> Reply {
        guard store.fetchesOnMiss, Glibc.access(stored, F_OK) != 0 else { return reply(derivedFormats.answer(question), for: request) }
        let (store, formats, id) = (self.store, derivedFormats, question.record.id)
        return .costly(CostlyWork(client: clients.client(of: request), pixels: question.workPixels) {
            do {
                guard try store.fetch(stored) else {
                    return Self.response(.failed(APIError.notFound("the pyramid of \(id) has no such file"), varies: false))
                }
            } catch {
                return Self.response(.failed(APIError(error), varies: false))
            }
            return Self.response(formats.answer(question))
        })
    }
}
